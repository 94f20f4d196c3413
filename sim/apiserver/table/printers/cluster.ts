// Networking, coordination, policy, admission and RBAC kinds with small printers.
import type { KubeObject } from '../../resources/types.js';
import { formatAge } from '../age.js';
import { ageColumn, col, nameColumn } from '../columns.js';
import { type Rec, dig, int, intOrString, list, recs, str } from '../fields.js';
import type { Cell, Printer } from '../types.js';

const age = (o: KubeObject, now: Date) => formatAge(o.metadata.creationTimestamp, now);

function simple(middle: ReturnType<typeof col>[], cells: (o: KubeObject) => Cell[]): Printer {
  return {
    columns: [nameColumn(), ...middle, ageColumn()],
    print: (o, now) => ({ cells: [o.metadata.name ?? '', ...cells(o), age(o, now)] }),
  };
}

export const endpointSlicePrinter = simple(
  [
    col('AddressType', 'string', 'addressType specifies the type of address carried by this EndpointSlice.'),
    col(
      'Ports',
      'string',
      'ports specifies the list of network ports exposed by each endpoint in this slice.',
    ),
    col('Endpoints', 'string', 'endpoints is a list of unique endpoints in this slice.'),
  ],
  (es) => {
    // A port without a number (all ports) prints its name, or "*" when unnamed.
    const ports = recs(es.ports).map((p) => {
      if (typeof p.port === 'number') return String(int(p.port));
      return typeof p.name === 'string' ? p.name : '*';
    });
    const addresses = recs(es.endpoints).flatMap((e) => list(e.addresses).map(str));
    return [str(es.addressType), listWithMore(ports), listWithMore(addresses)];
  },
);

/** First three items, "+ N more..." after them, "<unset>" when empty. */
function listWithMore(items: string[]): string {
  if (items.length === 0) return '<unset>';
  const shown = items.slice(0, 3).join(',');
  return items.length > 3 ? `${shown} + ${items.length - 3} more...` : shown;
}

export const leasePrinter = simple(
  [col('Holder', 'string', 'holderIdentity contains the identity of the holder of a current lease.')],
  (l) => [str(dig(l, 'spec', 'holderIdentity'))],
);

export const podDisruptionBudgetPrinter = simple(
  [
    col('Min Available', 'string', 'The minimum number of pods that must be available.'),
    col('Max Unavailable', 'string', 'The maximum number of pods that may be unavailable.'),
    col('Allowed Disruptions', 'integer', 'Calculated number of pods that may be disrupted at this time.'),
  ],
  (pdb) => {
    const bound = (f: string) => {
      const v = dig(pdb, 'spec', f);
      return v === undefined || v === null ? 'N/A' : intOrString(v);
    };
    return [bound('minAvailable'), bound('maxUnavailable'), int(dig(pdb, 'status', 'disruptionsAllowed'))];
  },
);

const webhooks = () =>
  simple(
    [
      col(
        'Webhooks',
        'integer',
        'Webhooks indicates the number of webhooks registered in this configuration',
      ),
    ],
    (w) => [list(w.webhooks).length],
  );

export const validatingWebhookPrinter = webhooks();
export const mutatingWebhookPrinter = webhooks();

const bindingPrinter = (kind: string): Printer => ({
  columns: [
    nameColumn(),
    col(
      'Role',
      'string',
      'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace.',
    ),
    ageColumn(),
    col('Users', 'string', `Users in the ${kind}`, 1),
    col('Groups', 'string', `Groups in the ${kind}`, 1),
    col('ServiceAccounts', 'string', `ServiceAccounts in the ${kind}`, 1),
  ],
  print: (b, now) => {
    const subjects = recs(b.subjects);
    const of = (k: string, f: (s: Rec) => string) =>
      subjects
        .filter((s) => s.kind === k)
        .map(f)
        .join(', ');
    const role = `${str(dig(b, 'roleRef', 'kind'))}/${str(dig(b, 'roleRef', 'name'))}`;
    const users = of('User', (s) => str(s.name));
    const groups = of('Group', (s) => str(s.name));
    const sas = of('ServiceAccount', (s) => `${str(s.namespace)}/${str(s.name)}`);
    return { cells: [b.metadata.name ?? '', role, age(b, now), users, groups, sas] };
  },
});

export const roleBindingPrinter = bindingPrinter('roleBinding');
export const clusterRoleBindingPrinter = bindingPrinter('clusterRoleBinding');
