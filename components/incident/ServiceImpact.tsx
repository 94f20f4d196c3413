'use client';
// Service impact (issue 25, 4): each Service with endpoints that are not ready, the worst first —
// "shop/orders: 0 of 3 ready" — with the pods that left its traffic and their nodes.
import Link from 'next/link';
import { podHref } from './links';
import type { IncidentData } from './live';

export function ServiceImpact({ cluster, data }: { cluster: string; data: IncidentData }) {
  if (!data.services.length) return null;
  return (
    <section aria-labelledby="incident-services-h" data-testid="incident-services" className="px-3 py-2">
      <h2 id="incident-services-h" className="mb-1 text-sm font-semibold">
        Service impact ({data.services.length + data.servicesMore})
      </h2>
      <table className="w-full text-sm">
        <thead>
          <tr className="text-left text-xs text-dim">
            <th className="py-0.5 pr-3 font-normal">Service</th>
            <th className="py-0.5 pr-3 font-normal">Ready endpoints</th>
            <th className="py-0.5 font-normal">Not ready (node)</th>
          </tr>
        </thead>
        <tbody>
          {data.services.map((s) => (
            <tr
              key={`${s.namespace}/${s.service}`}
              data-testid="incident-service"
              className="border-t border-line align-top"
            >
              <td className="py-0.5 pr-3 font-mono">
                <span className="text-dim">{s.namespace}/</span>
                {s.service}
              </td>
              <td className={`py-0.5 pr-3 font-semibold ${s.ready === 0 ? 'text-crit' : 'text-warn'}`}>
                {s.ready} of {s.endpoints}
                {s.ready === 0 && <span className="ml-1 font-normal">(no ready endpoint)</span>}
              </td>
              <td className="py-0.5 text-xs">
                {s.notReady.map((n, i) => {
                  const [namespace, name] = n.pod.split('/');
                  return (
                    <span key={n.pod}>
                      {i > 0 && ', '}
                      {name ? (
                        <Link
                          href={podHref(cluster, { namespace: namespace!, name })}
                          className="hover:underline"
                        >
                          {n.pod}
                        </Link>
                      ) : (
                        n.pod
                      )}
                      {n.node && (
                        <span className={n.nodeDown ? 'text-warn' : 'text-dim'}>
                          {' '}
                          ({n.node}
                          {n.nodeDown ? ', down' : ''})
                        </span>
                      )}
                    </span>
                  );
                })}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {data.servicesMore > 0 && <p className="text-xs text-dim">and {data.servicesMore} more</p>}
    </section>
  );
}
