'use client';
// Export an incident for the postmortem (issue 25): the record and every history entry of its
// window, oldest first, as Markdown or JSON — fetched through incident.export and saved by the
// browser. Errors (no history store, RBAC) are said beside the buttons.
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTRPC } from '../console/trpc';

function save(filename: string, contentType: string, body: string) {
  const url = URL.createObjectURL(new Blob([body], { type: contentType }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1_000);
}

export function ExportButtons({ cluster, incident }: { cluster: string; incident: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [state, setState] = useState<{ busy?: string; error?: string }>({});
  const run = async (format: 'markdown' | 'json') => {
    setState({ busy: format });
    try {
      const x = await qc.fetchQuery({
        ...trpc.incident.export.queryOptions({ cluster, name: incident, format }),
        staleTime: 0,
      });
      save(x.filename, x.contentType, x.body);
      setState({});
    } catch (e) {
      setState({ error: (e as Error).message });
    }
  };
  const button =
    'rounded border border-line bg-panel-2 px-2 py-0.5 text-xs hover:border-info disabled:opacity-50';
  return (
    <span className="flex flex-wrap items-center gap-2" data-testid="incident-export">
      <button type="button" className={button} disabled={!!state.busy} onClick={() => run('markdown')}>
        {state.busy === 'markdown' ? 'Exporting…' : 'Export Markdown'}
      </button>
      <button type="button" className={button} disabled={!!state.busy} onClick={() => run('json')}>
        {state.busy === 'json' ? 'Exporting…' : 'Export JSON'}
      </button>
      {state.error && (
        <span role="alert" className="text-xs text-crit">
          Export failed: {state.error}
        </span>
      )}
    </span>
  );
}
