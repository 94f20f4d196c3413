// Pure volume logic shared by the simulated control plane and Palisade's RWO attach guard.
export * from './attach.js';
export * from './binding.js';
export * from './detach.js';
export * from './names.js';
export * from './nodeAffinity.js';
export * from './provisioning.js';
export * from '../kube/quantity.js';
