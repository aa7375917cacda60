import { faultMatrix, PARTS } from './upstream-faults';

// Part 2 of the upstream fault matrix (see upstream-faults.ts).
faultMatrix(2, PARTS);
