// Webhook matchConditions as kube-apiserver v1.34 handles them: validated when a
// configuration is written (at most 64, qualified unique names, expressions that compile
// to bool), compiled once per configuration version, and evaluated after rules and
// selectors: every condition true → call the webhook; any false → skip it; an error (and no
// false) → failurePolicy: Fail refuses the request (403), Ignore skips the webhook. The
// `authorizer` variable asks the cluster's authorizer (cel/authorizer.ts).
import { goQuote, labelKeyErrors } from '../../../lib/kube/labelSelector.js';
import type { StatusCause } from '../http/errors.js';
import { type Authorize, authorizerFor } from './cel/authorizer.js';
import { type Activation, type Compiled, ConditionError, compileCondition } from './cel/environment.js';
import { celJson } from './cel/values.js';
import { type AdmissionAttributes, reviewOptions } from './match.js';

export interface MatchCondition {
  name?: string;
  expression?: string;
}

const MAX_CONDITIONS = 64;

const required = (field: string): StatusCause => ({
  reason: 'FieldValueRequired',
  message: 'Required value',
  field,
});
const invalid = (field: string, value: string, detail: string): StatusCause => ({
  reason: 'FieldValueInvalid',
  message: `Invalid value: ${goQuote(value)}: ${detail}`,
  field,
});

function validateOne(c: MatchCondition, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  const expression = typeof c.expression === 'string' ? c.expression.trim() : '';
  if (!expression) out.push(required(`${path}.expression`));
  else {
    const compiled = compileCondition(expression);
    if ('error' in compiled) out.push(invalid(`${path}.expression`, expression, compiled.error));
  }
  const name = typeof c.name === 'string' ? c.name : '';
  if (!name) out.push(required(`${path}.name`));
  // ValidateQualifiedName: the label-key rules
  else for (const m of labelKeyErrors(name)) out.push(invalid(`${path}.name`, name, m));
  return out;
}

/** validateMatchConditions of k8s.io/kubernetes' admissionregistration validation */
export function validateMatchConditions(conditions: unknown, path: string): StatusCause[] {
  if (!Array.isArray(conditions)) return [];
  const out: StatusCause[] = [];
  if (conditions.length > MAX_CONDITIONS)
    out.push({
      reason: 'FieldValueTooMany',
      message: `Too many: ${conditions.length}: must have at most ${MAX_CONDITIONS} items`,
      field: path,
    });
  const names = new Set<string>();
  conditions.forEach((c: MatchCondition, i) => {
    out.push(...validateOne(c ?? {}, `${path}[${i}]`));
    const name = c?.name;
    if (typeof name !== 'string' || !name) return;
    if (names.has(name))
      out.push({
        reason: 'FieldValueDuplicate',
        message: `Duplicate value: ${goQuote(name)}`,
        field: `${path}[${i}].name`,
      });
    names.add(name);
  });
  return out;
}

/**
 * On update, conditions are validated only if some webhook's changed (or the number of
 * webhooks did): a configuration stored by an older server stays updatable.
 */
export function matchConditionsUnchanged(webhooks: unknown, oldWebhooks: unknown): boolean {
  const n = Array.isArray(webhooks) ? webhooks : [];
  const o = Array.isArray(oldWebhooks) ? oldWebhooks : [];
  if (n.length !== o.length) return false;
  return n.every(
    (w, i) => JSON.stringify(w?.matchConditions ?? null) === JSON.stringify(o[i]?.matchConditions ?? null),
  );
}

// ---- dispatch -------------------------------------------------------------------------

interface CompiledCondition {
  expression: string;
  compiled: Compiled;
}

/** Conditions compiled once per configuration version (uid + resourceVersion). */
export class ConditionCache {
  private readonly byConfig = new Map<string, { rv: string; hooks: CompiledCondition[][] }>();

  conditions(cfg: { metadata?: any; webhooks?: any[] }, index: number): CompiledCondition[] {
    const key = cfg.metadata?.uid ?? cfg.metadata?.name ?? '';
    const rv = cfg.metadata?.resourceVersion ?? '';
    let entry = this.byConfig.get(key);
    if (!entry || entry.rv !== rv) {
      // a configuration's old versions are never asked for again; bound the map anyway
      if (!entry && this.byConfig.size >= 1024) this.byConfig.clear();
      entry = { rv, hooks: [] };
      this.byConfig.set(key, entry);
    }
    let hook = entry.hooks[index];
    if (!hook) {
      const list: MatchCondition[] = cfg.webhooks?.[index]?.matchConditions ?? [];
      // compiled as stored (the error text quotes the expression untrimmed)
      hook = list.map((c) => ({
        expression: String(c.expression ?? ''),
        compiled: compileCondition(String(c.expression ?? '')),
      }));
      entry.hooks[index] = hook;
    }
    return hook;
  }
}

/**
 * The variables kube-apiserver evaluates conditions with (CreateAdmissionRequest, then
 * converted to unstructured): omitempty fields are absent, so selecting one is an error and
 * has() is false; `object` is null on DELETE, `oldObject` null on CREATE.
 */
export function activation(a: AdmissionAttributes, authorize?: Authorize): Activation {
  const gvk = { group: a.kind.group, version: a.kind.version, kind: a.kind.kind };
  const gvr = { group: a.resource.group, version: a.resource.version, resource: a.resource.plural };
  const userInfo: Record<string, unknown> = {};
  if (a.user.username) userInfo.username = a.user.username;
  if (a.user.uid) userInfo.uid = a.user.uid;
  if (a.user.groups?.length) userInfo.groups = a.user.groups;
  const extra = a.user.extra;
  if (extra && Object.keys(extra).length) userInfo.extra = extra;
  const request: Record<string, unknown> = {
    kind: gvk,
    resource: gvr,
    requestKind: gvk,
    requestResource: gvr,
    operation: a.operation,
    userInfo,
    dryRun: a.dryRun,
    options: reviewOptions(a),
  };
  if (a.subresource) {
    request.subResource = a.subresource;
    request.requestSubResource = a.subresource;
  }
  if (a.name) request.name = a.name;
  if (a.namespace) request.namespace = a.namespace;
  return {
    object: a.object ? celJson(a.object) : null,
    oldObject: a.oldObject ? celJson(a.oldObject) : null,
    request: celJson(request) as Record<string, unknown>,
    authorizer: authorizerFor(a.user, authorize, {
      group: a.resource.group,
      resource: a.resource.plural,
      subresource: a.subresource,
      namespace: a.namespace,
      name: a.name,
    }),
  };
}

export type ConditionOutcome = { call: boolean; error?: undefined } | { call: false; error: string };

/** RuntimeCELCostBudgetMatchConditions: what all of one webhook's conditions may cost */
const COST_BUDGET = 2_500_000;

/**
 * condition.ForInput then matcher.Match: every condition is evaluated in order (running
 * out of the cost budget is an error of the whole match); then a false condition skips the
 * webhook whatever else failed, and errors decide by the failure policy (Fail, the default,
 * refuses with the errors aggregated).
 */
export function evaluateConditions(
  conditions: CompiledCondition[],
  vars: () => Activation,
  failurePolicy: string | undefined,
): ConditionOutcome {
  const fail = (error: string): ConditionOutcome =>
    failurePolicy === 'Ignore' ? { call: false } : { call: false, error };
  const errors: string[] = [];
  let isFalse = false;
  for (const c of conditions) {
    if ('error' in c.compiled) {
      errors.push(`compilation error: ${c.compiled.error}`);
      continue;
    }
    const activation = vars();
    const meter = activation.authorizer.meter;
    meter.expression = 0;
    try {
      if (!c.compiled.program.evaluate(activation)) isFalse = true;
    } catch (e) {
      if (!(e instanceof ConditionError)) throw e;
      errors.push(`expression '${c.expression}' resulted in error: ${e.message}`);
    }
    meter.total += meter.expression;
    if (meter.total > COST_BUDGET)
      return fail(
        'validation failed due to running out of cost budget, no further validation rules will be run',
      );
  }
  if (isFalse) return { call: false };
  if (errors.length === 0) return { call: true };
  const unique = [...new Set(errors)];
  return fail(unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`);
}
