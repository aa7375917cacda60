import { faultMatrix, PARTS } from './upstream-faults';

// Part 3 of the upstream fault matrix (see upstream-faults.ts).
faultMatrix(3, PARTS);
