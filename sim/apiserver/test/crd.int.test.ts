import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cluster, eventually, failure, raw, startCluster } from './harness.js';

let c: Cluster;
beforeAll(async () => {
  c = await startCluster();
});
afterAll(() => c.stop());

const fenceCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'nodefences.palisade.dev' },
  spec: {
    group: 'palisade.dev',
    scope: 'Cluster',
    names: {
      plural: 'nodefences',
      singular: 'nodefence',
      kind: 'NodeFence',
      shortNames: ['nf'],
      categories: ['palisade'],
    },
    versions: [
      {
        name: 'v1alpha1',
        served: true,
        storage: true,
        subresources: { status: {} },
        additionalPrinterColumns: [
          { name: 'Node', type: 'string', jsonPath: '.spec.nodeName' },
          { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
        ],
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                required: ['nodeName'],
                properties: {
                  nodeName: { type: 'string' },
                  retries: { type: 'integer', minimum: 0 },
                  strategy: { type: 'string', enum: ['OutOfServiceTaint', 'ForceDelete'] },
                  extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                },
              },
              status: { type: 'object', properties: { phase: { type: 'string' } } },
            },
          },
        },
      },
    ],
  },
};

const fences = () => ({ group: 'palisade.dev', version: 'v1alpha1', plural: 'nodefences' });

describe('CustomResourceDefinitions', () => {
  it('serves a new kind with discovery, schema validation, pruning and a status subresource', async () => {
    // sent raw: client-node's typed serializer drops schema keys it spells differently (enum, x-kubernetes-*)
    const res = await raw(
      c,
      'POST',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      JSON.stringify(fenceCrd),
    );
    expect(res.code).toBe(201);
    const crd = res.body as k8s.V1CustomResourceDefinition;
    expect(crd.status?.conditions?.find((x) => x.type === 'Established')?.status).toBe('True');

    const disco = await raw(c, 'GET', '/apis/palisade.dev/v1alpha1');
    expect(disco.body.resources[0]).toMatchObject({
      name: 'nodefences',
      kind: 'NodeFence',
      namespaced: false,
      shortNames: ['nf'],
      categories: ['palisade'],
    });
    expect(disco.body.resources.map((r: any) => r.name)).toContain('nodefences/status');
    const groups = await raw(c, 'GET', '/apis');
    expect(groups.body.groups.map((g: any) => g.name)).toContain('palisade.dev');

    const custom = c.kc.makeApiClient(k8s.CustomObjectsApi);
    const created: any = await custom.createClusterCustomObject({
      ...fences(),
      body: {
        apiVersion: 'palisade.dev/v1alpha1',
        kind: 'NodeFence',
        metadata: { name: 'node-1' },
        spec: { nodeName: 'node-1', retries: 3, unknownField: true, extra: { anything: 1 } },
        status: { phase: 'Fenced' },
      },
    });
    expect(created.spec.unknownField).toBeUndefined();
    expect(created.spec.extra).toEqual({ anything: 1 });
    expect(created.status).toBeUndefined();
    expect(created.metadata.generation).toBe(1);

    const bad = await failure(
      custom.createClusterCustomObject({
        ...fences(),
        body: {
          apiVersion: 'palisade.dev/v1alpha1',
          kind: 'NodeFence',
          metadata: { name: 'bad' },
          spec: { retries: -1, strategy: 'Pray' },
        },
      }),
    );
    expect(bad.code).toBe(422);
    expect(bad.status.reason).toBe('Invalid');
    const fields = bad.status.details.causes.map((x: any) => x.field).sort();
    expect(fields).toEqual(['spec.nodeName', 'spec.retries', 'spec.strategy']);
    expect(bad.status.message).toContain('NodeFence.palisade.dev "bad" is invalid');

    // status goes through /status only, and does not bump generation
    const withStatus: any = await custom.patchClusterCustomObjectStatus(
      { ...fences(), name: 'node-1', body: { status: { phase: 'Fencing' } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    expect(withStatus.status.phase).toBe('Fencing');
    expect(withStatus.metadata.generation).toBe(1);
    const specChange: any = await custom.patchClusterCustomObject(
      { ...fences(), name: 'node-1', body: { spec: { retries: 5 }, status: { phase: 'Ignored' } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    expect(specChange.status.phase).toBe('Fencing');
    expect(specChange.metadata.generation).toBe(2);

    // strategic merge patch is not available for custom resources
    const smp = await raw(
      c,
      'PATCH',
      '/apis/palisade.dev/v1alpha1/nodefences/node-1',
      '{"spec":{"retries":1}}',
      { 'content-type': 'application/strategic-merge-patch+json' },
    );
    expect(smp.code).toBe(415);
  });

  it('Table output uses the printer columns', async () => {
    const t = await raw(c, 'GET', '/apis/palisade.dev/v1alpha1/nodefences', undefined, {
      accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json',
    });
    expect(t.body.kind).toBe('Table');
    expect(t.body.columnDefinitions.map((d: any) => d.name)).toEqual(['Name', 'Node', 'Phase']);
    expect(t.body.rows[0].cells).toEqual(['node-1', 'node-1', 'Fencing']);
  });

  it('deleting the CRD deletes its objects and stops serving the kind', async () => {
    const ext = c.kc.makeApiClient(k8s.ApiextensionsV1Api);
    await ext.deleteCustomResourceDefinition({ name: 'nodefences.palisade.dev' });
    await eventually(
      async () => (await raw(c, 'GET', '/apis/palisade.dev/v1alpha1/nodefences')).code === 404,
      'kind no longer served',
    );
    expect((await failure(ext.readCustomResourceDefinition({ name: 'nodefences.palisade.dev' }))).code).toBe(
      404,
    );
    const groups = await raw(c, 'GET', '/apis');
    expect(groups.body.groups.map((g: any) => g.name)).not.toContain('palisade.dev');
  });

  it('rejects an invalid CRD', async () => {
    const ext = c.kc.makeApiClient(k8s.ApiextensionsV1Api);
    const err = await failure(
      ext.createCustomResourceDefinition({ body: { ...fenceCrd, metadata: { name: 'wrong.name' } } as any }),
    );
    expect(err.code).toBe(422);
    expect(err.status.details.causes[0].field).toBe('metadata.name');
  });
});
