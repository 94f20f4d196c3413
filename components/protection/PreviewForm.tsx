'use client';
// "Would this deletion be admitted?": a server-side dry-run DELETE through the API server,
// so the webhook itself answers and nothing is deleted or reserved.
import { useMutation, useQuery } from '@tanstack/react-query';
import { type FormEvent, useMemo, useState } from 'react';
import { useCluster } from '../console/cluster';
import { useTRPC } from '../console/trpc';

/** "ns/name" -> its parts, or undefined when it is not of that shape. */
function parsePod(text: string): { namespace: string; pod: string } | undefined {
  const m = text.trim().match(/^([^/\s]+)\/([^/\s]+)$/);
  return m ? { namespace: m[1], pod: m[2] } : undefined;
}

export function PreviewForm({ protector }: { protector: string }) {
  const trpc = useTRPC();
  const { cluster } = useCluster();
  const index = useQuery(
    trpc.protection.podIndex.queryOptions({ cluster: cluster ?? '' }, { enabled: !!cluster }),
  );
  const pods = useMemo(
    () =>
      Object.entries(index.data ?? {})
        .filter(([, keys]) => keys.includes(protector))
        .map(([pod]) => pod)
        .sort(),
    [index.data, protector],
  );
  const [text, setText] = useState('');
  const preview = useMutation(trpc.protection.preview.mutationOptions());
  const target = parsePod(text);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (target && cluster) preview.mutate({ cluster, ...target });
  };

  return (
    <form onSubmit={submit} aria-label="Deletion preview" className="flex flex-col gap-2 text-sm">
      <p className="text-xs text-dim">
        A server-side dry run on cluster <span className="font-mono">{cluster ?? '—'}</span>: the API server
        calls the admission webhook as for a real deletion, but nothing is deleted and no admission is
        reserved.
      </p>
      <div className="flex flex-wrap items-center gap-2">
        <label className="flex items-center gap-1.5">
          <span className="text-dim">Pod</span>
          <input
            value={text}
            onChange={(e) => setText(e.target.value)}
            placeholder="namespace/pod"
            list="protected-pods"
            aria-label="Pod (namespace/name)"
            className="w-72 rounded border border-line bg-panel-2 px-2 py-1 font-mono"
          />
        </label>
        <datalist id="protected-pods">
          {pods.map((p) => (
            <option key={p} value={p} />
          ))}
        </datalist>
        <select
          aria-label="Protected pods"
          value={pods.includes(text) ? text : ''}
          onChange={(e) => setText(e.target.value)}
          className="rounded border border-line bg-panel-2 px-1.5 py-1"
        >
          <option value="">
            {pods.length ? `Pick one of ${pods.length} pods…` : 'No pod of this protector seen'}
          </option>
          {pods.map((p) => (
            <option key={p} value={p}>
              {p}
            </option>
          ))}
        </select>
        <button
          type="submit"
          disabled={!target || !cluster || preview.isPending}
          className="rounded border border-info bg-info/15 px-2 py-1 hover:bg-info/25 disabled:opacity-50"
        >
          {preview.isPending ? 'Asking…' : 'Would this deletion be admitted?'}
        </button>
      </div>
      <Answer preview={preview} />
    </form>
  );
}

function Answer({
  preview,
}: {
  preview: {
    data?: { admitted: boolean; message: string; code?: number };
    error: { message: string } | null;
    variables?: { namespace: string; pod: string };
  };
}) {
  if (preview.error)
    return (
      <p role="alert" className="text-crit">
        Preview failed: {preview.error.message}
      </p>
    );
  const d = preview.data;
  if (!d) return null;
  const pod = preview.variables ? `${preview.variables.namespace}/${preview.variables.pod}` : '';
  return (
    <output
      aria-label="Preview result"
      className={`rounded border px-2 py-1.5 ${d.admitted ? 'border-ok/40 bg-ok/10' : 'border-crit/40 bg-crit/10'}`}
    >
      <span className={`font-semibold ${d.admitted ? 'text-ok' : 'text-crit'}`}>
        {d.admitted ? 'Admitted' : `Refused${d.code ? ` (${d.code})` : ''}`}
      </span>{' '}
      <span className="font-mono">{pod}</span>: {d.message}
    </output>
  );
}
