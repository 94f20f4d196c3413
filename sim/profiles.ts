// Named settings for the embedded cluster. `default` keeps the real durations;
// `demo` and `test` shorten them so incidents play out in seconds.
import type { ApiServerOptions } from './apiserver/index.js';

export interface Profile {
  description: string;
  apiserver: Partial<ApiServerOptions>;
}

export const profiles = {
  default: { description: 'real Kubernetes durations', apiserver: {} },
  demo: {
    description: 'short durations for demos',
    apiserver: { bookmarkIntervalMs: 5_000, defaultTolerationSeconds: 30 },
  },
  test: {
    description: 'tiny durations and a small watch window, for tests',
    apiserver: { bookmarkIntervalMs: 1_000, defaultTolerationSeconds: 5, watchWindow: 1_000 },
  },
} satisfies Record<string, Profile>;

export type ProfileName = keyof typeof profiles;
