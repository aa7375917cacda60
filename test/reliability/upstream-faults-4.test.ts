import { faultMatrix, PARTS } from './upstream-faults';

// Part 4 of the upstream fault matrix (see upstream-faults.ts).
faultMatrix(4, PARTS);
