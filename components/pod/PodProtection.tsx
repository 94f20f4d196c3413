'use client';
// The pod page's deletion-protection card: which PodProtectors guard this pod, how each
// stands against its floor, and a "would deleting this pod be admitted?" button that runs a
// server-side dry-run DELETE (the webhook answers; nothing is deleted or reserved).
import { useMutation } from '@tanstack/react-query';
import Link from 'next/link';
import { podKey } from '@/lib/console/ui/protection';
import { useTRPC } from '../console/trpc';
import { ShieldIcon } from '../map/NodeTile';
import { StateBadge } from '../protection/StateBadge';
import { protectorHref, usePodProtection } from '../protection/usePodProtection';

export function PodProtection({
  cluster,
  namespace,
  name,
  terminating,
}: {
  cluster: string;
  namespace: string;
  name: string;
  terminating: boolean;
}) {
  const trpc = useTRPC();
  const protection = usePodProtection(cluster);
  const preview = useMutation(trpc.protection.preview.mutationOptions());
  if (!protection.enabled) return null;
  const keys = protection.index.get(podKey({ namespace, name })) ?? [];
  return (
    <section aria-label="Deletion protection" className="rounded border border-line bg-panel p-3">
      <h2 className="mb-2 flex items-center gap-1.5 text-xs font-semibold uppercase tracking-wide text-dim">
        <ShieldIcon className={keys.length ? 'text-info' : ''} /> Deletion protection
      </h2>
      {keys.length === 0 ? (
        <p className="text-xs text-dim">No PodProtector guards this pod: its deletion is not checked.</p>
      ) : (
        <ul className="flex flex-col gap-1 text-xs">
          {keys.map((k) => {
            const r = protection.protectors.get(k);
            return (
              <li key={k} className="flex flex-wrap items-center gap-2">
                <span className="text-dim">Guarded by</span>
                <Link href={protectorHref(k)} className="font-mono text-info hover:underline">
                  {k}
                </Link>
                {r && (
                  <>
                    <StateBadge state={r.state} />
                    <span className="tabular-nums text-dim">
                      available {r.aggregated} aggregated · {r.estimated} estimated · floor {r.minAvailable}
                    </span>
                  </>
                )}
              </li>
            );
          })}
        </ul>
      )}
      {keys.length > 0 && !terminating && (
        <div className="mt-2 flex flex-wrap items-center gap-2 text-xs">
          <button
            type="button"
            disabled={preview.isPending}
            onClick={() => preview.mutate({ cluster, namespace, pod: name })}
            className="rounded border border-info bg-info/15 px-2 py-1 hover:bg-info/25 disabled:opacity-50"
            title="A server-side dry run: the webhook answers, nothing is deleted or reserved"
          >
            {preview.isPending ? 'Asking…' : 'Would deleting this pod be admitted?'}
          </button>
          {preview.error && (
            <span role="alert" className="text-crit">
              Preview failed: {preview.error.message}
            </span>
          )}
          {preview.data && (
            <output aria-label="Preview result" className={preview.data.admitted ? 'text-ok' : 'text-crit'}>
              <span className="font-semibold">
                {preview.data.admitted
                  ? 'Admitted'
                  : `Refused${preview.data.code ? ` (${preview.data.code})` : ''}`}
              </span>
              : {preview.data.message}
            </output>
          )}
        </div>
      )}
    </section>
  );
}
