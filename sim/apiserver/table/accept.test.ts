import { describe, expect, it } from 'vitest';
import { StatusError } from '../http/errors.js';
import { parseIncludeObject, wantsTable } from './index.js';

const KUBECTL_120 =
  'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

describe('wantsTable', () => {
  it.each<[string | undefined, boolean]>([
    [KUBECTL_120, true],
    ['application/json;as=Table;v=v1beta1;g=meta.k8s.io', true],
    ['application/json; as=Table; g=meta.k8s.io; v=v1', true],
    [undefined, false],
    ['', false],
    ['application/json', false],
    ['*/*', false],
    ['application/vnd.kubernetes.protobuf, */*', false],
    // A plain type listed first wins over a later Table clause.
    ['application/json, application/json;as=Table;v=v1;g=meta.k8s.io', false],
    // ...unless it is less preferred by q.
    ['application/json;q=0.5, application/json;as=Table;v=v1;g=meta.k8s.io', true],
    // Conversions the server cannot do are skipped.
    ['application/json;as=Table;v=v2;g=meta.k8s.io,application/json', false],
    ['application/json;as=Table;v=v1;g=example.com,application/json;as=Table;v=v1;g=meta.k8s.io', true],
    ['application/yaml;as=Table;v=v1;g=meta.k8s.io,application/json', false],
    ['application/json;as=Table;v=v1;g=meta.k8s.io;q=0', false],
    ['application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json', false],
  ])('%j -> %s', (accept, expected) => {
    expect(wantsTable(accept)).toBe(expected);
  });
});

describe('parseIncludeObject', () => {
  it.each<[string | undefined, string]>([
    [undefined, 'Metadata'],
    ['', 'Metadata'],
    ['Metadata', 'Metadata'],
    ['None', 'None'],
    ['Object', 'Object'],
  ])('%j -> %s', (v, expected) => {
    expect(parseIncludeObject(v)).toBe(expected);
  });

  it('rejects unknown values with the server 400', () => {
    let err: unknown;
    try {
      parseIncludeObject('object');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StatusError);
    const status = (err as StatusError).toStatus();
    expect(status.code).toBe(400);
    expect(status.reason).toBe('BadRequest');
    expect(status.message).toContain('includeObject: Unsupported value: "object"');
  });
});
