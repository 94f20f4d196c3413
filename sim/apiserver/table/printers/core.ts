// Small core/v1 kinds: Namespace, ConfigMap, Secret, ServiceAccount, Service, Endpoints.
import type { KubeObject } from '../../resources/types.js';
import { formatAge } from '../age.js';
import { ageColumn, col, nameColumn, selectorColumn } from '../columns.js';
import { type Rec, countKeys, dig, int, list, rec, recs, str } from '../fields.js';
import { formatLabels } from '../labels.js';
import type { Cell, Printer } from '../types.js';

const age = (o: KubeObject, now: Date) => formatAge(o.metadata.creationTimestamp, now);
const name = (o: KubeObject) => o.metadata.name ?? '';

/** Builds the common NAME ... AGE printer from the cells between the two. */
function simple(middle: ReturnType<typeof col>[], cells: (o: KubeObject) => Cell[]): Printer {
  return {
    columns: [nameColumn(), ...middle, ageColumn()],
    print: (o, now) => ({ cells: [name(o), ...cells(o), age(o, now)] }),
  };
}

export const namespacePrinter = simple([col('Status', 'string', 'The status of the namespace')], (ns) => [
  // The registry always stores a phase; default it for objects written without one.
  str(dig(ns, 'status', 'phase')) || (ns.metadata.deletionTimestamp ? 'Terminating' : 'Active'),
]);

export const configMapPrinter = simple(
  [
    col(
      'Data',
      'string',
      "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process.",
    ),
  ],
  (cm) => [countKeys(cm.data) + countKeys(cm.binaryData)],
);

export const secretPrinter = simple(
  [
    col('Type', 'string', 'Used to facilitate programmatic handling of secret data.'),
    col('Data', 'string', 'Data contains the secret data.'),
  ],
  (s) => [str(s.type) || 'Opaque', countKeys(s.data)],
);

export const serviceAccountPrinter = simple(
  [
    col(
      'Secrets',
      'string',
      'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.',
    ),
  ],
  (sa) => [list(sa.secrets).length],
);

export const endpointsPrinter = simple(
  [col('Endpoints', 'string', 'The set of all endpoints is the union of all subsets.')],
  (ep) => [formatEndpoints(recs(ep.subsets))],
);

export const servicePrinter: Printer = {
  columns: [
    nameColumn(),
    col('Type', 'string', 'type determines how the Service is exposed.'),
    col(
      'Cluster-IP',
      'string',
      'clusterIP is the IP address of the service and is usually assigned randomly.',
    ),
    col(
      'External-IP',
      'string',
      'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.',
    ),
    col('Port(s)', 'string', 'The list of ports that are exposed by this service.'),
    ageColumn(),
    selectorColumn('Route service traffic to pods with label keys and values matching this selector.'),
  ],
  print: (svc, now) => {
    const spec = rec(svc.spec);
    // spec.type defaults to ClusterIP and spec.clusterIPs mirrors clusterIP on a real server.
    const type = str(spec.type) || 'ClusterIP';
    const clusterIP = str(list(spec.clusterIPs)[0]) || str(spec.clusterIP) || '<none>';
    const ports = portString(recs(spec.ports)) || '<none>';
    return {
      cells: [
        name(svc),
        type,
        clusterIP,
        externalIP(svc, type),
        ports,
        age(svc, now),
        formatLabels(spec.selector),
      ],
    };
  },
};

function externalIP(svc: KubeObject, type: string): string {
  const externalIPs = list(dig(svc, 'spec', 'externalIPs')).map(str);
  switch (type) {
    case 'ClusterIP':
    case 'NodePort':
      return externalIPs.length ? externalIPs.join(',') : '<none>';
    case 'LoadBalancer': {
      const lb = loadBalancerAddresses(recs(dig(svc, 'status', 'loadBalancer', 'ingress')));
      if (externalIPs.length) return [...lb, ...externalIPs].join(',');
      return lb.length ? lb.join(',') : '<pending>';
    }
    case 'ExternalName':
      return str(dig(svc, 'spec', 'externalName'));
    default:
      return '<unknown>';
  }
}

function loadBalancerAddresses(ingress: Rec[]): string[] {
  const set = new Set(ingress.map((i) => str(i.ip) || str(i.hostname)).filter((a) => a !== ''));
  return [...set].sort();
}

function portString(ports: Rec[]): string {
  return ports
    .map((p) => {
      const proto = str(p.protocol) || 'TCP';
      return int(p.nodePort) > 0 ? `${int(p.port)}:${int(p.nodePort)}/${proto}` : `${int(p.port)}/${proto}`;
    })
    .join(',');
}

/** Up to three ip:port pairs, then "+ N more...". */
function formatEndpoints(subsets: Rec[]): string {
  if (subsets.length === 0) return '<none>';
  const shown: string[] = [];
  let total = 0;
  for (const ss of subsets) {
    const ips = recs(ss.addresses).map((a) => str(a.ip));
    const ports = recs(ss.ports);
    // Headless services may have addresses without ports.
    const pairs = ports.length === 0 ? ips : ports.flatMap((p) => ips.map((ip) => hostPort(ip, int(p.port))));
    total += pairs.length;
    shown.push(...pairs.slice(0, 3 - shown.length));
  }
  const joined = shown.join(',');
  return total > 3 ? `${joined} + ${total - 3} more...` : joined;
}

function hostPort(ip: string, port: number): string {
  return ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
}
