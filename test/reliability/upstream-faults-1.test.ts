import { faultMatrix, PARTS } from './upstream-faults';

// Part 1 of the upstream fault matrix (see upstream-faults.ts).
faultMatrix(1, PARTS);
