// The CEL environment kube-apiserver compiles webhook matchConditions in
// (k8s.io/apiserver admission/plugin/cel): `object`, `oldObject` (dyn), `request` (the typed
// kubernetes.AdmissionRequest), `namespaceObject` (typed kubernetes.Namespace), `authorizer`
// (./authorizer.ts), optional
// types, homogeneous aggregate literals, and a bool result. The language itself is
// @marcbachmann/cel-js's; this file declares the variables and types, adds the strings
// extension functions that library lacks, and renders its errors the way cel-go does, so
// that a refused configuration and a failed evaluation read as on the real server.
import { Environment, type ParseResult } from '@marcbachmann/cel-js';
import { type AuthorizerVal, authzLibrary } from './authorizer.js';
import { celGoCheckError, celGoLiteralError, celGoRuntimeError, celGoType } from './errors.js';

const GVK = { group: 'string', version: 'string', kind: 'string' };
const GVR = { group: 'string', version: 'string', resource: 'string' };

function declareTypes(env: Environment): Environment {
  return (
    env
      .registerType('kubernetes.GroupVersionKind', { fields: GVK })
      .registerType('kubernetes.GroupVersionResource', { fields: GVR })
      .registerType('kubernetes.UserInfo', {
        fields: {
          username: 'string',
          uid: 'string',
          groups: 'list<string>',
          extra: 'map<string, list<string>>',
        },
      })
      // BuildRequestType: no uid, no object/oldObject (they are variables of their own)
      .registerType('kubernetes.AdmissionRequest', {
        fields: {
          kind: 'kubernetes.GroupVersionKind',
          resource: 'kubernetes.GroupVersionResource',
          subResource: 'string',
          requestKind: 'kubernetes.GroupVersionKind',
          requestResource: 'kubernetes.GroupVersionResource',
          requestSubResource: 'string',
          name: 'string',
          namespace: 'string',
          operation: 'string',
          userInfo: 'kubernetes.UserInfo',
          dryRun: 'bool',
          options: 'dyn',
        },
      })
      // BuildNamespaceType
      .registerType('kubernetes.NamespaceSpec', { fields: { finalizers: 'list<string>' } })
      .registerType('kubernetes.NamespaceCondition', {
        fields: {
          status: 'string',
          type: 'string',
          lastTransitionTime: 'google.protobuf.Timestamp',
          message: 'string',
          reason: 'string',
        },
      })
      .registerType('kubernetes.NamespaceStatus', {
        fields: { conditions: 'list<kubernetes.NamespaceCondition>', phase: 'string' },
      })
      .registerType('kubernetes.NamespaceMetadata', {
        fields: {
          name: 'string',
          generateName: 'string',
          namespace: 'string',
          labels: 'map<string, string>',
          annotations: 'map<string, string>',
          UID: 'string',
          creationTimestamp: 'google.protobuf.Timestamp',
          deletionGracePeriodSeconds: 'int',
          deletionTimestamp: 'google.protobuf.Timestamp',
          generation: 'int',
          resourceVersion: 'string',
          finalizers: 'list<string>',
        },
      })
      .registerType('kubernetes.Namespace', {
        fields: {
          metadata: 'kubernetes.NamespaceMetadata',
          spec: 'kubernetes.NamespaceSpec',
          status: 'kubernetes.NamespaceStatus',
        },
      })
  );
}

/** cel-go's ext.Strings (version 2) functions the library does not have */
function stringsExtension(env: Environment): Environment {
  const ordinal = (s: string) => [...s];
  return env
    .registerFunction('string.replace(string, string): string', (s: string, a: string, b: string) =>
      s.replaceAll(a, b),
    )
    .registerFunction(
      'string.replace(string, string, int): string',
      (s: string, a: string, b: string, n: bigint) => {
        if (n < 0n) return s.replaceAll(a, b);
        let out = s;
        let from = 0;
        for (let i = 0n; i < n; i++) {
          const at = out.indexOf(a, from);
          if (at < 0) break;
          out = out.slice(0, at) + b + out.slice(at + a.length);
          from = at + b.length + (a === '' ? 1 : 0);
        }
        return out;
      },
    )
    .registerFunction('string.charAt(int): string', (s: string, i: bigint) => {
      const chars = ordinal(s);
      if (i < 0n || i > BigInt(chars.length)) throw new Error(`index out of range: ${i}`);
      return chars[Number(i)] ?? '';
    })
    .registerFunction('string.reverse(): string', (s: string) => ordinal(s).reverse().join(''));
}

function build(): { env: Environment; functions: Set<string> } {
  const env = authzLibrary(
    stringsExtension(
      declareTypes(new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: true })),
    ),
  )
    .registerVariable('object', 'dyn')
    .registerVariable('oldObject', 'dyn')
    .registerVariable('request', 'kubernetes.AdmissionRequest')
    .registerVariable('namespaceObject', 'kubernetes.Namespace');
  const functions = new Set(env.getDefinitions().functions.map((f) => f.name));
  return { env, functions };
}

// building the environment validates every declaration: once per process
let built: ReturnType<typeof build> | undefined;
const admission = () => {
  built ??= build();
  return built;
};

/** The variables a condition is evaluated with; values already converted (celJson). */
export interface Activation {
  object: unknown;
  oldObject: unknown;
  request: Record<string, unknown>;
  authorizer: AuthorizerVal;
}

export interface Program {
  /** true/false, or throws ConditionError with cel-go's wording */
  evaluate(vars: Activation): boolean;
}

export type Compiled = { program: Program } | { error: string };

export class ConditionError extends Error {}

/**
 * CompileCELExpression for a matchCondition: the error is the cel.Error detail the
 * real server puts after the expression ("compilation failed: ERROR: <input>:1:1: …",
 * "must evaluate to bool but got dyn").
 */
export function compileCondition(expression: string): Compiled {
  const { env, functions } = admission();
  let parsed: ParseResult;
  try {
    parsed = env.parse(expression);
  } catch (e) {
    return { error: `compilation failed: ${celGoCheckError(expression, e, functions)}` };
  }
  const checked = parsed.check();
  if (!checked.valid)
    return { error: `compilation failed: ${celGoCheckError(expression, checked.error, functions)}` };
  const literal = celGoLiteralError(expression, parsed.ast);
  if (literal) return { error: `compilation failed: ${literal}` };
  if (checked.type !== 'bool') return { error: `must evaluate to bool but got ${celGoType(checked.type)}` };
  // namespaceObject is null for webhooks: an instance without fields fails every selection
  // ("no such key") and every has() is false, as selecting from null does in cel-go
  const namespaceObject = {};
  return {
    program: {
      evaluate(vars: Activation): boolean {
        let v: unknown;
        try {
          v = parsed({ ...vars, namespaceObject });
        } catch (e) {
          throw new ConditionError(celGoRuntimeError(e));
        }
        if (typeof v !== 'boolean') throw new ConditionError(`no such overload`);
        return v;
      },
    },
  };
}
