// Every simulated control-plane loop, in the order they are registered.
import type { Controller } from './runtime/context.js';

export function allControllers(): Controller[] {
  return [];
}
