// Differential: webhook matchConditions (CEL) on the embedded API server and on
// kube-apiserver v1.34.10. The same configurations are refused with the same 422 (field path
// and cel-go's message), and the same requests call, skip or are refused (403) the same way:
// a pod already terminating (the kubelet's final delete) skips the pod-deletion webhook while
// an eviction is always reviewed; a condition on request.userInfo.username; one on
// request.options.fieldManager for UPDATE (what Palisade's node-epoch webhook matches on);
// errors at run time under failurePolicy Fail and Ignore.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../apiserver/test/harness.js';
import { type Backend, type Backends, call, onBoth, startBackends } from './backends.js';
import { seen } from './normalise.js';
import { type Hooks, namespace, pod, startHooks } from './scenario.js';

let bs: Backends;
let hooks: Hooks;
const NS = 'diff-conditions';
const pods = `/api/v1/namespaces/${NS}/pods`;
const VWC = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';

/** the pod-deletion webhook's condition, as Palisade's chart registers it */
const NOT_TERMINATING = "request.operation != 'DELETE' || !has(oldObject.metadata.deletionTimestamp)";
const TWO_CHECKS =
  "authorizer.path('/a').check('get').reason() == authorizer.path('/b').check('get').reason()";
/** the node-epoch webhook's condition */
const EPOCH_WRITE =
  "has(request.options.fieldManager) && request.options.fieldManager.startsWith('palisade-leader-e')";

interface Hook {
  name: string;
  operations: string[];
  /** the resource of `operations` (default pods) */
  resource?: string;
  /** other rules than `operations` on pods, and no objectSelector (an Eviction has no labels) */
  everyPod?: { operations: string[]; resources: string[] }[];
  conditions: string[];
  failurePolicy?: 'Fail' | 'Ignore';
}

/** each webhook sees only pods labelled app=<its name>; paths starting /deny are refused */
const HOOKS: Hook[] = [
  {
    name: 'term',
    operations: [],
    everyPod: [
      { operations: ['DELETE'], resources: ['pods'] },
      { operations: ['CREATE'], resources: ['pods/eviction'] },
    ],
    conditions: [NOT_TERMINATING],
  },
  { name: 'deny-user', operations: ['CREATE'], conditions: ["request.userInfo.username == 'alice'"] },
  { name: 'deny-epoch', operations: ['UPDATE'], conditions: [EPOCH_WRITE] },
  {
    name: 'deny-node-epoch',
    operations: ['UPDATE'],
    resource: 'nodes',
    conditions: [EPOCH_WRITE, '!has(request.namespace)'],
  },
  {
    name: 'options',
    operations: ['UPDATE'],
    conditions: ['{"x": true}[request.options.kind + "|" + request.options.fieldManager]'],
  },
  { name: 'deny-err-fail', operations: ['CREATE'], conditions: ["object.spec.nope == 'x'"] },
  {
    name: 'deny-err-ignore',
    operations: ['CREATE'],
    conditions: ["object.spec.nope == 'x'"],
    failurePolicy: 'Ignore',
  },
  {
    name: 'deny-err-two',
    operations: ['CREATE'],
    conditions: ['object.a == 1', 'oldObject.metadata.name == "x"'],
  },
  { name: 'deny-err-then-false', operations: ['CREATE'], conditions: ['object.a == 1', 'false'] },
  {
    name: 'deny-ints',
    operations: ['CREATE'],
    conditions: [
      'type(object.spec.terminationGracePeriodSeconds) == int && object.spec.containers.all(c, c.ports.all(p, p.containerPort > 1000))',
    ],
  },
  {
    name: 'deny-request',
    operations: ['CREATE'],
    conditions: [
      "request.kind.kind == 'Pod' && request.resource.resource == 'pods' && request.namespace == 'diff-conditions' && !has(request.subResource) && request.dryRun == false && 'system:masters' in request.userInfo.groups",
    ],
  },
  {
    name: 'deny-authz',
    operations: ['CREATE'],
    conditions: [
      "authorizer.requestResource.check('create').allowed()",
      "!authorizer.serviceAccount(request.namespace, 'nobody').group('').resource('secrets').namespace(request.namespace).check('list').allowed()",
    ],
  },
  {
    name: 'authz-reason',
    operations: ['CREATE'],
    conditions: [
      '{"x": true}[authorizer.group("apps").resource("deployments").check("get").reason() + "|" + string(authorizer.serviceAccount("default", "sa").path("/healthz").check("get").errored())]',
    ],
  },
  // each check costs 350 000: a third in one expression passes the per-call limit (1 000 000)
  {
    name: 'authz-cost',
    operations: ['CREATE'],
    conditions: [`${TWO_CHECKS} && authorizer.path('/c').check('get').reason() == ''`],
  },
  // …and eight across a webhook's conditions its budget (2 500 000)
  {
    name: 'authz-budget',
    operations: ['CREATE'],
    conditions: [TWO_CHECKS, TWO_CHECKS, TWO_CHECKS, TWO_CHECKS],
  },
  // registered last: once it refuses, kube-apiserver's informer has every configuration
  { name: 'deny-warm', operations: ['CREATE'], conditions: ['true'] },
];

function configuration(b: Backend, h: Hook) {
  const hook = hooks[b.name];
  return {
    metadata: { name: h.name },
    webhooks: [
      {
        name: `${h.name}.palisade.test`,
        clientConfig: { url: `${hook.url}/${h.name}`, caBundle: hook.caBundle },
        rules: (h.everyPod ?? [{ operations: h.operations, resources: [h.resource ?? 'pods'] }]).map((r) => ({
          ...r,
          apiGroups: [''],
          apiVersions: ['v1'],
        })),
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': NS } },
        objectSelector: h.everyPod ? {} : { matchLabels: { app: h.name } },
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        failurePolicy: h.failurePolicy ?? 'Fail',
        timeoutSeconds: 5,
        matchConditions: h.conditions.map((expression, i) => ({ name: `condition-${i}`, expression })),
      },
    ],
  };
}

const labelled = (name: string, app: string, spec: Record<string, unknown> = {}) =>
  pod(name, { nodeName: 'node-x', ...spec }, { labels: { app } });

/** the reply as a client sees it, and the webhook paths the request reached */
async function observe(b: Backend, act: () => Promise<Awaited<ReturnType<typeof call>>>) {
  const hook = hooks[b.name];
  hook.reviews.length = 0;
  const reply = await act();
  return {
    ...seen(reply),
    called: hook.reviews.map((r) => `${r.request.operation} ${r.path.split('?')[0]}`),
  };
}

beforeAll(async () => {
  [bs, hooks] = await Promise.all([startBackends(), startHooks()]);
  for (const h of [hooks.embedded, hooks.real])
    h.decide = (path) =>
      path.startsWith('/deny')
        ? { allowed: false, status: { code: 403, message: `refused by ${path.split('?')[0]}` } }
        : { allowed: true };
  await onBoth(bs, async (b) => {
    await namespace(b, NS);
    for (const h of HOOKS) {
      const r = await call(b, 'POST', VWC, configuration(b, h));
      if (r.code !== 201) throw new Error(`${b.name}: ${h.name}: ${r.code} ${r.text}`);
    }
    // kube-apiserver sees configurations through an informer: wait for the last one
    await eventually(async () => {
      const r = await call(b, 'POST', `${pods}?dryRun=All`, labelled('probe', 'deny-warm'));
      return r.code === 403;
    }, `${b.name}: webhooks active`);
  });
}, 120_000);
afterAll(async () => {
  await bs?.stop();
  await hooks?.stop();
});

describe('matchConditions decide whether a webhook is called', () => {
  it('a pod already terminating skips the pod-deletion webhook; its first DELETE and an eviction do not', async () => {
    const r = await onBoth(bs, async (b) => {
      for (const name of ['term-a', 'term-b']) await call(b, 'POST', pods, labelled(name, 'term'));
      const graceful = await observe(b, () =>
        call(b, 'DELETE', `${pods}/term-a`, { gracePeriodSeconds: 30 }),
      );
      // the kubelet's final delete of a terminating pod
      const final = await observe(b, () => call(b, 'DELETE', `${pods}/term-a`, { gracePeriodSeconds: 0 }));
      const eviction = await observe(b, () =>
        call(b, 'POST', `${pods}/term-b/eviction`, {
          apiVersion: 'policy/v1',
          kind: 'Eviction',
          metadata: { name: 'term-b' },
        }),
      );
      return { graceful, final, eviction };
    });
    expect(r.embedded).toEqual(r.real);
    expect(r.real.graceful.called).toEqual(['DELETE /term']);
    expect(r.real.final.called).toEqual([]);
    expect(r.real.eviction.called).toEqual(['CREATE /term']);
  });

  it('a condition on request.userInfo.username: called for alice, skipped for bob', async () => {
    const as = (user: string) => ({ 'Impersonate-User': user, 'Impersonate-Group': 'system:masters' });
    const r = await onBoth(bs, async (b) => ({
      alice: await observe(b, () => call(b, 'POST', pods, labelled('by-alice', 'deny-user'), as('alice'))),
      bob: await observe(b, () => call(b, 'POST', pods, labelled('by-bob', 'deny-user'), as('bob'))),
    }));
    expect(r.embedded).toEqual(r.real);
    expect(r.real.alice.code).toBe(403);
    expect(r.real.bob.code).toBe(201);
  });

  it('a condition on request.options.fieldManager for UPDATE: only palisade-leader-e… writes are reviewed', async () => {
    const r = await onBoth(bs, async (b) => {
      await call(b, 'POST', pods, labelled('epoch', 'deny-epoch'));
      const get = async () => (await call(b, 'GET', `${pods}/epoch`)).body;
      const relabel = async (query: string, value: string) => {
        const obj = await get();
        obj.metadata.annotations = { touched: value };
        return observe(b, () => call(b, 'PUT', `${pods}/epoch${query}`, obj));
      };
      const patch = (query: string) =>
        observe(b, () =>
          call(
            b,
            'PATCH',
            `${pods}/epoch${query}`,
            { metadata: { annotations: { patched: query } } },
            {
              'content-type': 'application/merge-patch+json',
            },
          ),
        );
      return {
        stamped: await relabel('?fieldManager=palisade-leader-e7', 'a'),
        otherManager: await relabel('?fieldManager=kubectl-edit', 'b'),
        noManager: await relabel('', 'c'),
        stampedPatch: await patch('?fieldManager=palisade-leader-e8'),
        plainPatch: await patch(''),
      };
    });
    expect(r.embedded).toEqual(r.real);
    expect(r.real.stamped.code).toBe(403);
    expect(r.real.stampedPatch.code).toBe(403);
    expect([r.real.otherManager.code, r.real.noManager.code, r.real.plainPatch.code]).toEqual([
      200, 200, 200,
    ]);
  });

  it('the same on a Node (cluster-scoped: request.namespace absent)', async () => {
    const r = await onBoth(bs, async (b) => {
      const node = {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: 'epoch-node', labels: { app: 'deny-node-epoch' } },
      };
      const created = await call(b, 'POST', '/api/v1/nodes', node);
      if (created.code !== 201) throw new Error(`${b.name}: node: ${created.code} ${created.text}`);
      const patch = (query: string) =>
        observe(b, () =>
          call(
            b,
            'PATCH',
            `/api/v1/nodes/epoch-node${query}`,
            { metadata: { annotations: { at: query } } },
            {
              'content-type': 'application/merge-patch+json',
            },
          ),
        );
      const out = {
        stamped: await patch('?fieldManager=palisade-leader-e9'),
        other: await patch('?fieldManager=kubelet'),
      };
      await call(b, 'DELETE', '/api/v1/nodes/epoch-node');
      // kube-apiserver runs a PATCH again when its update conflicts (kube-controller-manager's
      // node lifecycle controller writes this kubelet-less node too): the webhook may be asked
      // twice for one request. Whether it is asked is the question, not how often.
      const once = (called: string[]) => [...new Set(called)];
      return {
        stamped: { code: out.stamped.code, called: once(out.stamped.called) },
        other: { code: out.other.code, called: once(out.other.called) },
      };
    });
    expect(r.embedded).toEqual(r.real);
    expect(r.real).toEqual({
      stamped: { code: 403, called: ['UPDATE /deny-node-epoch'] },
      other: { code: 200, called: [] },
    });
  });

  it('request.options on UPDATE holds the UpdateOptions with kind and fieldManager (shown by an error)', async () => {
    const r = await onBoth(bs, async (b) => {
      await call(b, 'POST', pods, labelled('opts', 'options'));
      const obj = (await call(b, 'GET', `${pods}/opts`)).body;
      obj.metadata.annotations = { x: 'y' };
      const put = await observe(b, () => call(b, 'PUT', `${pods}/opts?fieldManager=palisade-leader-e3`, obj));
      const patch = await observe(b, () =>
        call(
          b,
          'PATCH',
          `${pods}/opts?fieldManager=palisade-leader-e4`,
          { metadata: { labels: { x: 'y' } } },
          {
            'content-type': 'application/merge-patch+json',
          },
        ),
      );
      return { put, patch };
    });
    expect(r.embedded).toEqual(r.real);
    expect(r.real.put.body.message).toContain('no such key: UpdateOptions|palisade-leader-e3');
    // a PATCH is admitted as an UPDATE with UpdateOptions, its fieldManager kept
    expect(r.real.patch.body.message).toContain('no such key: UpdateOptions|palisade-leader-e4');
  });

  it('the request variable: kind, resource, namespace, no subResource, dryRun, groups', async () => {
    const r = await onBoth(bs, (b) =>
      observe(b, () => call(b, 'POST', pods, labelled('req', 'deny-request'))),
    );
    expect(r.embedded).toEqual(r.real);
    expect(r.real.called).toEqual(['CREATE /deny-request']);
  });

  it('the authorizer: the request’s own resource, another user’s rights, and the reasons given', async () => {
    const r = await onBoth(bs, async (b) => ({
      checks: await observe(b, () => call(b, 'POST', pods, labelled('authz', 'deny-authz'))),
      reasons: await observe(b, () => call(b, 'POST', pods, labelled('reason', 'authz-reason'))),
      cost: await observe(b, () => call(b, 'POST', pods, labelled('cost', 'authz-cost'))),
      budget: await observe(b, () => call(b, 'POST', pods, labelled('budget', 'authz-budget'))),
    }));
    expect(r.embedded).toEqual(r.real);
    expect(r.real.checks.called).toEqual(['CREATE /deny-authz']);
    expect(r.real.reasons.code).toBe(403);
    expect(r.real.cost.body.message).toContain(
      'resulted in error: operation cancelled: actual cost limit exceeded',
    );
    expect(r.real.budget.body.message).toBe(
      'pods "budget" is forbidden: validation failed due to running out of cost budget, no further validation rules will be run',
    );
  });

  it('JSON whole numbers are CEL ints', async () => {
    const r = await onBoth(bs, (b) =>
      observe(b, () =>
        call(
          b,
          'POST',
          pods,
          labelled('ints', 'deny-ints', {
            containers: [{ name: 'app', image: 'nginx:1.25', ports: [{ containerPort: 8080 }] }],
          }),
        ),
      ),
    );
    expect(r.embedded).toEqual(r.real);
    expect(r.real.called).toEqual(['CREATE /deny-ints']);
  });
});

describe('an error at run time: failurePolicy decides', () => {
  const create = (app: string) =>
    onBoth(bs, (b) => observe(b, () => call(b, 'POST', pods, labelled(`pod-${app}`, app))));

  it('Fail: the request is refused with 403 naming the expression and cel-go’s error', async () => {
    const r = await create('deny-err-fail');
    expect(r.embedded).toEqual(r.real);
    expect(r.real.code).toBe(403);
    expect(r.real.body.message).toBe(
      `pods "pod-deny-err-fail" is forbidden: expression 'object.spec.nope == 'x'' resulted in error: no such key: nope`,
    );
  });

  it('Ignore: the webhook is skipped', async () => {
    const r = await create('deny-err-ignore');
    expect(r.embedded).toEqual(r.real);
    expect(r.real).toMatchObject({ code: 201, called: [] });
  });

  it('two errors are listed together; a false condition wins over an error', async () => {
    const two = await create('deny-err-two');
    const thenFalse = await create('deny-err-then-false');
    expect(two.embedded).toEqual(two.real);
    expect(thenFalse.embedded).toEqual(thenFalse.real);
    expect(two.real.body.message).toMatch(/forbidden: \[expression .*, expression .*\]$/);
    expect(thenFalse.real).toMatchObject({ code: 201, called: [] });
  });
});

describe('configurations with invalid matchConditions are refused alike', () => {
  const cases: [string, object[]][] = [
    ['not a bool', [{ name: 'a', expression: 'object.metadata.name' }]],
    ['undeclared', [{ name: 'a', expression: "foo == 'x'" }]],
    ['a field AdmissionRequest lacks', [{ name: 'a', expression: 'request.object == null' }]],
    ['no overload', [{ name: 'a', expression: 'request.operation == 1' }]],
    ['no method overload', [{ name: 'a', expression: 'request.userInfo.username.startsWith(1)' }]],
    ['an unknown function', [{ name: 'a', expression: 'object.x.nope()' }]],
    ['mixed list', [{ name: 'a', expression: "[1, 'a'].size() == 2" }]],
    ['a list', [{ name: 'a', expression: '[true]' }]],
    ['surrounding blanks', [{ name: 'a', expression: '  foo == 1 ' }]],
    ['a bad name', [{ name: 'bad name!', expression: 'true' }]],
    ['no name or expression', [{}]],
    ['a blank expression', [{ name: 'a', expression: '   ' }]],
    [
      'a duplicate name',
      [
        { name: 'a', expression: 'true' },
        { name: 'a', expression: 'true' },
      ],
    ],
    ['a bad regular expression literal', [{ name: 'a', expression: "object.x.matches('(')" }]],
    [
      'a bad timestamp literal',
      [{ name: 'a', expression: "timestamp('x') > timestamp('2020-01-01T00:00:00Z')" }],
    ],
    ['a bad duration literal', [{ name: 'a', expression: "duration('1x') > duration('1s')" }]],
    ['65 conditions', Array.from({ length: 65 }, (_, i) => ({ name: `c${i}`, expression: 'true' }))],
  ];
  it.each(cases)('%s', async (label, matchConditions) => {
    const name = `invalid-${label.replace(/[^a-z0-9]+/g, '-')}`;
    const r = await onBoth(bs, async (b) => {
      const body = configuration(b, { name, operations: ['CREATE'], conditions: [] });
      (body.webhooks[0] as { matchConditions: object[] }).matchConditions = matchConditions;
      return seen(await call(b, 'POST', VWC, body));
    });
    expect(r.embedded).toEqual(r.real);
    expect(r.real.code).toBe(422);
  });

  it('a syntax error: the same status, field and position; ANTLR’s wording is a known difference', async () => {
    const r = await onBoth(bs, async (b) => {
      const body = configuration(b, { name: 'syntax', operations: ['CREATE'], conditions: ['1 +'] });
      const reply = seen(await call(b, 'POST', VWC, body));
      // KNOWN_DIFFERENCES.md: what follows "Syntax error:" is ANTLR's on the real server
      return JSON.parse(JSON.stringify(reply).replace(/Syntax error: [^\\]*/g, 'Syntax error: <detail>'));
    });
    expect(r.embedded).toEqual(r.real);
    expect(r.real.body.message).toContain(
      'expression: Invalid value: "1 +": compilation failed: ERROR: <input>:1:4: Syntax error: <detail>\n | 1 +\n | ...^',
    );
  });

  it('an update that keeps the conditions is admitted; one that makes them invalid is refused', async () => {
    const r = await onBoth(bs, async (b) => {
      const body = configuration(b, { name: 'updated', operations: ['CREATE'], conditions: ['true'] });
      const created = (await call(b, 'POST', VWC, body)).body;
      created.webhooks[0].timeoutSeconds = 7;
      const same = seen(await call(b, 'PUT', `${VWC}/updated`, created));
      const current = (await call(b, 'GET', `${VWC}/updated`)).body;
      current.webhooks[0].matchConditions = [{ name: 'b', expression: 'nope' }];
      return { same: same.code, changed: seen(await call(b, 'PUT', `${VWC}/updated`, current)) };
    });
    expect(r.embedded).toEqual(r.real);
    expect(r.real.same).toBe(200);
    expect(r.real.changed.code).toBe(422);
  });
});
