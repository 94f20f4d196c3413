// Guard decisions for the console's dangerous actions (pure; the server feeds them live reads).
export * from './actions.js';
export * from './audit.js';
export * from './detach.js';
export * from './dialog.js';
export * from './fence.js';
export * from './fenced.js';
export * from './fenceOutlook.js';
export * from './waitWords.js';
export * from './forceDelete.js';
export * from './outOfService.js';
export * from './stopped.js';
export * from './types.js';
