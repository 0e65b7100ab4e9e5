/** Fault points (see src/faults.ts); re-exported for the flows. */
export { fault } from '../faults.js';
