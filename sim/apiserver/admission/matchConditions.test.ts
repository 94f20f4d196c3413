// Webhook matchConditions: validation messages and evaluation outcomes, as measured on
// kube-apiserver v1.34.10 (sim/diff/matchConditions.int.test.ts compares the two servers).
import { describe, expect, it } from 'vitest';
import { compileCondition } from './cel/environment.js';
import { celJson } from './cel/values.js';
import type { AdmissionAttributes } from './match.js';
import {
  ConditionCache,
  activation,
  evaluateConditions,
  matchConditionsUnchanged,
  validateMatchConditions,
} from './matchConditions.js';

const PATH = 'webhooks[0].matchConditions';

describe('validation of matchConditions', () => {
  const causes = (conditions: unknown) => validateMatchConditions(conditions, PATH);

  it.each([
    ['a bool expression and a qualified name', [{ name: 'not-terminating', expression: 'true' }], []],
    ['a prefixed qualified name', [{ name: 'palisade.dev/epoch', expression: 'true' }], []],
    [
      'a dyn result',
      [{ name: 'a', expression: 'object.metadata.name' }],
      [
        {
          reason: 'FieldValueInvalid',
          message: 'Invalid value: "object.metadata.name": must evaluate to bool but got dyn',
          field: `${PATH}[0].expression`,
        },
      ],
    ],
    [
      'a list result',
      [{ name: 'a', expression: '[true]' }],
      [
        expect.objectContaining({
          message: 'Invalid value: "[true]": must evaluate to bool but got list(bool)',
        }),
      ],
    ],
    [
      'an undeclared variable',
      [{ name: 'a', expression: 'foo == 1' }],
      [
        expect.objectContaining({
          message:
            "Invalid value: \"foo == 1\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'foo' (in container '')\n | foo == 1\n | ^",
        }),
      ],
    ],
    [
      'blanks around the expression are trimmed first',
      [{ name: 'a', expression: '  foo == 1 ' }],
      [expect.objectContaining({ message: expect.stringContaining('Invalid value: "foo == 1": ') })],
    ],
    [
      'a field the typed request lacks',
      [{ name: 'a', expression: 'request.object == null' }],
      [
        expect.objectContaining({
          message:
            'Invalid value: "request.object == null": compilation failed: ERROR: <input>:1:8: undefined field \'object\'\n | request.object == null\n | .......^',
        }),
      ],
    ],
    [
      'no overload for an operator',
      [{ name: 'a', expression: 'request.operation == 1' }],
      [
        expect.objectContaining({
          message: expect.stringContaining(
            "ERROR: <input>:1:19: found no matching overload for '_==_' applied to '(string, int)'\n | request.operation == 1\n | ..................^",
          ),
        }),
      ],
    ],
    [
      'no overload for a method',
      [{ name: 'a', expression: 'request.userInfo.username.startsWith(1)' }],
      [
        expect.objectContaining({
          message: expect.stringContaining(
            "ERROR: <input>:1:37: found no matching overload for 'startsWith' applied to 'string.(int)'",
          ),
        }),
      ],
    ],
    [
      'an unknown method',
      [{ name: 'a', expression: 'object.x.nope()' }],
      [expect.objectContaining({ message: expect.stringContaining("1:14: undeclared reference to 'nope'") })],
    ],
    [
      'a mixed list literal',
      [{ name: 'a', expression: "[1, 'a'].size() == 2" }],
      [
        expect.objectContaining({
          message: expect.stringContaining("1:5: expected type 'int' but found 'string'"),
        }),
      ],
    ],
    [
      'a pattern literal RE2 refuses',
      [{ name: 'a', expression: "'a'.matches('(')" }],
      [expect.objectContaining({ message: expect.stringContaining('1:13: invalid matches argument\n') })],
    ],
    [
      'a timestamp literal that is not RFC 3339',
      [{ name: 'a', expression: "timestamp('2020-01-01') < timestamp('2021-01-01T00:00:00Z')" }],
      [expect.objectContaining({ message: expect.stringContaining('1:11: invalid timestamp argument\n') })],
    ],
    [
      'a duration literal without a unit',
      [{ name: 'a', expression: "duration('90') > duration('1m30s')" }],
      [expect.objectContaining({ message: expect.stringContaining('1:10: invalid duration argument\n') })],
    ],
    [
      'valid literals',
      [{ name: 'a', expression: "'ab'.matches('^a.$') && duration('1m30s') > duration('-1.5h')" }],
      [],
    ],
    [
      'a name that is not a qualified name',
      [{ name: 'bad name!', expression: 'true' }],
      [
        {
          reason: 'FieldValueInvalid',
          message:
            "Invalid value: \"bad name!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
          field: `${PATH}[0].name`,
        },
      ],
    ],
    [
      'nothing given: expression first, then name',
      [{}],
      [
        { reason: 'FieldValueRequired', message: 'Required value', field: `${PATH}[0].expression` },
        { reason: 'FieldValueRequired', message: 'Required value', field: `${PATH}[0].name` },
      ],
    ],
    [
      'a blank expression',
      [{ name: 'a', expression: '  ' }],
      [{ reason: 'FieldValueRequired', message: 'Required value', field: `${PATH}[0].expression` }],
    ],
    [
      'a duplicate name',
      [
        { name: 'a', expression: 'true' },
        { name: 'a', expression: 'false' },
      ],
      [{ reason: 'FieldValueDuplicate', message: 'Duplicate value: "a"', field: `${PATH}[1].name` }],
    ],
  ])('%s', (_label, conditions, expected) => {
    expect(causes(conditions)).toEqual(expected);
  });

  it('at most 64 conditions', () => {
    const list = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `c${i}`, expression: 'true' }));
    expect(causes(list(64))).toEqual([]);
    expect(causes(list(65))).toEqual([
      { reason: 'FieldValueTooMany', message: 'Too many: 65: must have at most 64 items', field: PATH },
    ]);
  });

  it('an update is checked only when some webhook’s conditions changed', () => {
    const hooks = (e: string) => [{ name: 'w', matchConditions: [{ name: 'a', expression: e }] }];
    expect(matchConditionsUnchanged(hooks('true'), hooks('true'))).toBe(true);
    expect(matchConditionsUnchanged(hooks('false'), hooks('true'))).toBe(false);
    expect(matchConditionsUnchanged([...hooks('true'), { name: 'x' }], hooks('true'))).toBe(false);
  });
});

const pod = (meta: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'ns', labels: { app: 'a' }, ...meta },
  spec: {
    terminationGracePeriodSeconds: 30,
    containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 8080 }] }],
  },
});

const attrs = (over: Partial<AdmissionAttributes> = {}): AdmissionAttributes => ({
  operation: 'DELETE',
  resource: { group: '', version: 'v1', kind: 'Pod', plural: 'pods', namespaced: true } as never,
  subresource: '',
  kind: { group: '', version: 'v1', kind: 'Pod' },
  namespace: 'ns',
  name: 'p',
  object: null,
  oldObject: pod(),
  options: {},
  dryRun: false,
  user: { username: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] },
  ...over,
});

const NOT_TERMINATING = "request.operation != 'DELETE' || !has(oldObject.metadata.deletionTimestamp)";
const EPOCH =
  "has(request.options.fieldManager) && request.options.fieldManager.startsWith('palisade-leader-e')";

function outcome(expressions: string[], a: AdmissionAttributes, failurePolicy?: string) {
  const compiled = expressions.map((expression) => ({ expression, compiled: compileCondition(expression) }));
  return evaluateConditions(compiled, () => activation(a), failurePolicy);
}

describe('evaluation: call, skip, or refuse', () => {
  const terminating = pod({ deletionTimestamp: '2026-01-01T00:00:00Z', deletionGracePeriodSeconds: 30 });
  const eviction = attrs({
    operation: 'CREATE',
    subresource: 'eviction',
    kind: { group: 'policy', version: 'v1', kind: 'Eviction' },
    object: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'p' } } as never,
    oldObject: null,
  });

  it.each([
    ['DELETE of a running pod', [NOT_TERMINATING], attrs(), { call: true }],
    ['DELETE of a terminating pod', [NOT_TERMINATING], attrs({ oldObject: terminating }), { call: false }],
    ['an eviction (oldObject null)', [NOT_TERMINATING], eviction, { call: true }],
    [
      'UPDATE stamped with an epoch',
      [EPOCH],
      attrs({ operation: 'UPDATE', options: { fieldManager: 'palisade-leader-e12' } }),
      { call: true },
    ],
    [
      'UPDATE by another manager',
      [EPOCH],
      attrs({ operation: 'UPDATE', options: { fieldManager: 'kubelet' } }),
      { call: false },
    ],
    ['UPDATE without a manager', [EPOCH], attrs({ operation: 'UPDATE' }), { call: false }],
    ['request.options.kind', ["request.options.kind == 'DeleteOptions'"], attrs(), { call: true }],
    ['the user', ["request.userInfo.username.startsWith('system:node:')"], attrs(), { call: true }],
    ['groups', ["'system:nodes' in request.userInfo.groups"], attrs(), { call: true }],
    ['no extra: has() is false', ['has(request.userInfo.extra)'], attrs(), { call: false }],
    ['no subresource: has() is false', ['!has(request.subResource)'], attrs(), { call: true }],
    [
      'a cluster-scoped write has no namespace',
      ['!has(request.namespace)'],
      attrs({
        operation: 'UPDATE',
        namespace: undefined,
        resource: { group: '', version: 'v1', kind: 'Node', plural: 'nodes', namespaced: false } as never,
      }),
      { call: true },
    ],
    ['eviction subresource', ["request.subResource == 'eviction'"], eviction, { call: true }],
    ['requestKind', ["request.requestKind.kind == 'Eviction'"], eviction, { call: true }],
    [
      'whole numbers are int',
      ['type(oldObject.spec.terminationGracePeriodSeconds) == int'],
      attrs(),
      { call: true },
    ],
    [
      'int arithmetic',
      ['oldObject.spec.containers[0].ports[0].containerPort + 1 == 8081'],
      attrs(),
      { call: true },
    ],
    [
      'macros',
      [
        "oldObject.spec.containers.exists(c, c.name == 'c') && oldObject.spec.containers.all(c, has(c.image))",
      ],
      attrs(),
      { call: true },
    ],
    [
      'map literal and in',
      ["'app' in oldObject.metadata.labels && {'a': 1}['a'] == 1"],
      attrs(),
      { call: true },
    ],
    [
      'string functions',
      [
        "oldObject.metadata.name.matches('^p$') && 'abc'.endsWith('c') && 'abc'.contains('b') && size('abc') == 3",
      ],
      attrs(),
      { call: true },
    ],
    [
      'strings extension',
      ["'a-b'.replace('-', '.') == 'a.b' && 'abc'.charAt(1) == 'b' && 'abc'.reverse() == 'cba'"],
      attrs(),
      { call: true },
    ],
    ['a false condition wins over an error', ['object.a == 1', 'false'], attrs(), { call: false }],
    [
      'Fail: an error refuses',
      ['oldObject.spec.nope == 1'],
      attrs(),
      { call: false, error: "expression 'oldObject.spec.nope == 1' resulted in error: no such key: nope" },
    ],
    [
      'Fail: errors are listed together',
      ['object.metadata.name == "x"', 'oldObject.a == 1'],
      attrs(),
      {
        call: false,
        error:
          "[expression 'object.metadata.name == \"x\"' resulted in error: no such key: metadata, expression 'oldObject.a == 1' resulted in error: no such key: a]",
      },
    ],
    [
      'an index out of bounds',
      ['oldObject.spec.containers[5].name == "x"'],
      attrs(),
      { call: false, error: expect.stringContaining('resulted in error: index out of bounds: 5') },
    ],
    [
      'a bad conversion',
      ['int(oldObject.metadata.name) == 1'],
      attrs(),
      { call: false, error: expect.stringContaining("type conversion error from 'string' to 'int'") },
    ],
    [
      'a bad regular expression',
      ['oldObject.metadata.name.matches(oldObject.metadata.name + "(")'],
      attrs(),
      { call: false, error: expect.stringContaining('error parsing regexp: missing closing ): `p(`') },
    ],
    ['namespaceObject is null for webhooks', ['!has(namespaceObject.metadata)'], attrs(), { call: true }],
  ])('%s', (_label, expressions, a, expected) => {
    expect(outcome(expressions, a)).toEqual(expected);
  });

  it('Ignore: an error skips the webhook', () => {
    expect(outcome(['oldObject.spec.nope == 1'], attrs(), 'Ignore')).toEqual({ call: false });
  });

  it('an expression that no longer compiles is an error of its own', () => {
    expect(outcome(['nope'], attrs())).toEqual({
      call: false,
      error: expect.stringMatching(/^compilation error: compilation failed: ERROR: <input>:1:1: undeclared/),
    });
  });
});

describe('values as kube-apiserver hands them to CEL', () => {
  it.each([
    [1, 1n],
    [-3, -3n],
    [1.5, 1.5],
    [2 ** 64, 2 ** 64],
    ['1', '1'],
    [null, null],
    [true, true],
  ])('%s', (json, cel) => {
    expect(celJson(json)).toEqual(cel);
  });

  it('maps keep every key, even one named like a prototype member', () => {
    const m = celJson(JSON.parse('{"__proto__": 1, "constructor": {"a": [2]}}')) as Record<string, any>;
    expect(Object.keys(m)).toEqual(['__proto__', 'constructor']);
    expect((m.constructor as unknown as { a: unknown[] }).a).toEqual([2n]);
  });
});

describe('cel-go’s rendering of errors', () => {
  it('puts the caret under the column in runes, wide for non-ASCII characters', () => {
    const c = compileCondition("'é' == x");
    expect(c).toEqual({
      error:
        "compilation failed: ERROR: <input>:1:8: undeclared reference to 'x' (in container '')\n | 'é' == x\n | .．.....^",
    });
  });

  it('names the line of a multi-line expression', () => {
    const c = compileCondition('true &&\n  nope');
    expect(c).toEqual({
      error:
        "compilation failed: ERROR: <input>:2:3: undeclared reference to 'nope' (in container '')\n |   nope\n | ..^",
    });
  });
});

describe('compiled once per configuration version', () => {
  const cfg = (rv: string, expression: string) => ({
    metadata: { uid: 'u1', resourceVersion: rv },
    webhooks: [{ matchConditions: [{ name: 'a', expression }] }],
  });

  it('reuses the compiled conditions until the resourceVersion changes', () => {
    const cache = new ConditionCache();
    const first = cache.conditions(cfg('1', 'true'), 0);
    expect(cache.conditions(cfg('1', 'true'), 0)).toBe(first);
    const next = cache.conditions(cfg('2', 'false'), 0);
    expect(next).not.toBe(first);
    expect(next[0].expression).toBe('false');
  });
});

describe('the authorizer variable', () => {
  const seen: Record<string, unknown>[] = [];
  const authorize = (a: any) => {
    seen.push({ ...a, user: a.user.username });
    return { allowed: a.verb === 'get', reason: a.verb === 'get' ? 'RBAC: allowed by test' : '' };
  };
  const run = (expressions: string[], failurePolicy?: string) => {
    seen.length = 0;
    const compiled = expressions.map((expression) => ({
      expression,
      compiled: compileCondition(expression),
    }));
    return evaluateConditions(
      compiled,
      once(() => activation(attrs(), authorize)),
      failurePolicy,
    );
  };
  const once = <T>(f: () => T) => {
    let v: T | undefined;
    return () => {
      v ??= f();
      return v;
    };
  };

  it('checks the request’s own resource as the requesting user', () => {
    expect(run(["authorizer.requestResource.check('get').allowed()"])).toEqual({ call: true });
    expect(seen).toEqual([
      {
        verb: 'get',
        resourceRequest: true,
        path: '',
        apiGroup: '',
        apiVersion: '*',
        resource: 'pods',
        subresource: '',
        namespace: 'ns',
        name: 'p',
        user: 'system:node:n1',
      },
    ]);
  });

  it('checks another resource as a ServiceAccount, and a path', () => {
    expect(
      run([
        "!authorizer.serviceAccount('kube-system', 'gc').group('apps').resource('deployments').subresource('scale').namespace('x').name('y').check('update').allowed()",
        "authorizer.path('/healthz').check('get').reason() == 'RBAC: allowed by test'",
      ]),
    ).toEqual({ call: true });
    expect(
      seen.map((a) => [a.user, a.verb, a.apiGroup, a.resource, a.subresource, a.namespace, a.name, a.path]),
    ).toEqual([
      ['system:serviceaccount:kube-system:gc', 'update', 'apps', 'deployments', 'scale', 'x', 'y', ''],
      ['system:node:n1', 'get', '', '', '', '', '', '/healthz'],
    ]);
  });

  it('refuses empty names at run time', () => {
    expect(run(["authorizer.group('').resource(' ').check('get').allowed()"])).toEqual({
      call: false,
      error: expect.stringContaining('resulted in error: resource must not be empty'),
    });
  });

  it('three checks in one expression pass the per-call cost limit; eight in all the budget', () => {
    const two =
      "authorizer.path('/a').check('get').allowed() == authorizer.path('/b').check('get').allowed()";
    expect(run([`${two} && authorizer.path('/c').check('get').allowed()`])).toEqual({
      call: false,
      error: expect.stringContaining('resulted in error: operation cancelled: actual cost limit exceeded'),
    });
    expect(run([two, two, two, two])).toEqual({
      call: false,
      error: 'validation failed due to running out of cost budget, no further validation rules will be run',
    });
    expect(run([two, two, two, two], 'Ignore')).toEqual({ call: false });
    expect(run([two, two, two])).toEqual({ call: true });
  });
});
