// Unique instance IDs by compare-and-swap on the workload's annotation (seed 002): pure rules.
export * from './decide.js';
export * from './flags.js';
export * from './map.js';
export * from './owner.js';
export * from './scope.js';
export * from './holders.js';
export * from './types.js';
export * from './view.js';
