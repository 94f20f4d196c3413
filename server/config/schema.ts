// The console server's configuration file (palisade.yaml): which contexts to show and the
// mode each cluster runs in. Modes exist because production operators legitimately hold
// write permission: "read-only" makes Palisade refuse every change to that cluster,
// "protected" makes every change name its target again before it runs.
import { z } from 'zod';

import type { ClusterMode } from '../../lib/console/actionGuard.js';

export type { ClusterMode };
export const CLUSTER_MODES = ['normal', 'read-only', 'protected'] as const satisfies readonly ClusterMode[];

const mode = z.enum(CLUSTER_MODES, {
  error: (i) => `must be one of ${CLUSTER_MODES.join(', ')}, got ${JSON.stringify(i.input)}`,
});

const clusterEntry = z.strictObject({
  /** the kubeconfig context */
  context: z.string().min(1, 'must not be empty'),
  mode: mode.default('normal'),
});

export const configSchema = z
  .strictObject({
    /** the kubeconfig to read when neither --kubeconfig nor $KUBECONFIG is given */
    kubeconfig: z.string().min(1, 'must not be empty').optional(),
    /** contexts shown side by side, in this order (--context overrides the list, not the modes) */
    clusters: z.array(clusterEntry).default([]),
    /** the mode of a context the file does not list */
    defaultMode: mode.default('normal'),
  })
  .superRefine((cfg, ctx) => {
    const seen = new Set<string>();
    cfg.clusters.forEach((c, i) => {
      if (seen.has(c.context))
        ctx.addIssue({
          code: 'custom',
          path: ['clusters', i, 'context'],
          message: `"${c.context}" is listed twice`,
        });
      seen.add(c.context);
    });
  });

export type PalisadeConfig = z.infer<typeof configSchema>;

export const EMPTY_CONFIG: PalisadeConfig = { clusters: [], defaultMode: 'normal' };

/** The mode a context runs in: the file's entry, else its default; --read-only wins over both. */
export function modeOf(cfg: PalisadeConfig, context: string, forceReadOnly = false): ClusterMode {
  if (forceReadOnly) return 'read-only';
  return cfg.clusters.find((c) => c.context === context)?.mode ?? cfg.defaultMode;
}

/** The contexts to show: --context if given, else the file's list (empty: the kubeconfig's current). */
export function contextsToShow(cfg: PalisadeConfig, fromFlags: string[]): string[] {
  return fromFlags.length ? fromFlags : cfg.clusters.map((c) => c.context);
}
