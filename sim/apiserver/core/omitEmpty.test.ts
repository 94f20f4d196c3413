import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../resources/types.js';
import { applyWriteDefaults } from './defaults.js';
import { dropEmptyStatus } from './omitEmpty.js';

const obj = (apiVersion: string, kind: string, status: object): KubeObject =>
  ({ apiVersion, kind, metadata: { name: 'x' }, status }) as KubeObject;

describe('dropEmptyStatus', () => {
  it('drops the omitempty status fields that are zero or empty, keeps the others', () => {
    const d = obj('apps/v1', 'Deployment', {
      replicas: 0,
      unavailableReplicas: 0,
      observedGeneration: 2,
      conditions: [],
    });
    dropEmptyStatus(d);
    expect(d.status).toEqual({ observedGeneration: 2 });
    const s = obj('apps/v1', 'StatefulSet', {
      replicas: 0,
      availableReplicas: 0,
      currentReplicas: 0,
      currentRevision: '',
    });
    dropEmptyStatus(s);
    expect(s.status).toEqual({ replicas: 0, availableReplicas: 0 });
    const p = obj('policy/v1', 'PodDisruptionBudget', { disruptedPods: {}, disruptionsAllowed: 0 });
    dropEmptyStatus(p);
    expect(p.status).toEqual({ disruptionsAllowed: 0 });
  });

  it('leaves other kinds alone', () => {
    const c = obj('example.com/v1', 'Deployment', { replicas: 0 });
    dropEmptyStatus(c);
    expect(c.status).toEqual({ replicas: 0 });
  });
});

describe('applyWriteDefaults', () => {
  it('gives a CRD the None conversion strategy unless it has one', () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: {},
      spec: {},
    };
    applyWriteDefaults('CustomResourceDefinition', 'apiextensions.k8s.io', crd as KubeObject);
    expect(crd.spec).toEqual({ conversion: { strategy: 'None' } });
    const webhook = { ...crd, spec: { conversion: { strategy: 'Webhook' } } };
    applyWriteDefaults('CustomResourceDefinition', 'apiextensions.k8s.io', webhook as KubeObject);
    expect(webhook.spec.conversion).toEqual({ strategy: 'Webhook' });
  });
});
