// A minimal /openapi/v2 document. kubectl asks for it as protobuf (gnostic's
// openapi.v2.Document) to decide whether a kind supports server-side dry-run: it
// looks for the kind's PATCH operation carrying a `dryRun` query parameter. We
// publish exactly that, for every served kind, and no schemas (kubectl then skips
// client-side validation, which the server does anyway).
import type { ResourceInfo } from '../resources/types.js';
import { serverVersion } from './discovery.js';

// ---- a few protobuf wire-format helpers (only what this document needs) ----------

function varint(n: number): number[] {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return out;
}

/** A length-delimited field (wire type 2): strings and embedded messages. */
function field(num: number, payload: Buffer | string): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  return Buffer.concat([Buffer.from([...varint((num << 3) | 2), ...varint(body.length)]), body]);
}

const msg = (...parts: Buffer[]) => Buffer.concat(parts);

// ---- the document ------------------------------------------------------------------

function resourcePath(r: ResourceInfo): string {
  const base = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
  return r.namespaced ? `${base}/namespaces/{namespace}/${r.plural}/{name}` : `${base}/${r.plural}/{name}`;
}

function gvkYaml(r: ResourceInfo): string {
  return `group: "${r.group}"\nkind: ${r.kind}\nversion: ${r.version}\n`;
}

function patchOperation(r: ResourceInfo): Buffer {
  // QueryParameterSubSchema{in=2, name=4, type=6} inside NonBodyParameter(3) / Parameter(2) / ParametersItem(1)
  const dryRun = field(1, field(2, field(3, msg(field(2, 'query'), field(4, 'dryRun'), field(6, 'string')))));
  const gvk = field(13, msg(field(1, 'x-kubernetes-group-version-kind'), field(2, field(2, gvkYaml(r)))));
  return msg(field(5, `patch${r.group.replace(/\W/g, '')}${r.kind}`), field(8, dryRun), gvk);
}

export function openApiProtobuf(resources: ResourceInfo[]): Buffer {
  const paths = resources
    .filter((r) => !r.verbs)
    .map((r) => field(2, msg(field(1, resourcePath(r)), field(2, field(8, patchOperation(r))))));
  return msg(
    field(1, '2.0'),
    field(2, msg(field(1, 'Kubernetes'), field(2, serverVersion.gitVersion))),
    field(8, msg(...paths)),
  );
}

export function openApiJson(resources: ResourceInfo[]) {
  const paths: Record<string, unknown> = {};
  for (const r of resources.filter((x) => !x.verbs)) {
    paths[resourcePath(r)] = {
      patch: {
        operationId: `patch${r.group.replace(/\W/g, '')}${r.kind}`,
        parameters: [{ in: 'query', name: 'dryRun', type: 'string', uniqueItems: true }],
        'x-kubernetes-group-version-kind': { group: r.group, kind: r.kind, version: r.version },
      },
    };
  }
  return {
    swagger: '2.0',
    info: { title: 'Kubernetes', version: serverVersion.gitVersion },
    paths,
    definitions: {},
  };
}
