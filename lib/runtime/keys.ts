// A loop's keys, typed. The work queue de-duplicates strings, so each loop names one codec that
// turns its key into the queue's string and back; the reconciler and every watch mapping see
// the typed key only. One codec per key shape keeps one field order (a Deployment's key is
// kind, namespace, name in every loop) and a loop's special keys (a sweep, a singleton) are
// members of its key type, not magic strings compared by hand.

export interface KeyCodec<K> {
  encode(key: K): string;
  /** undefined: not a key of this codec (the queue only holds what encode made) */
  decode(text: string): K | undefined;
}

/** Names that are keys as they are: a node, a namespace, a policy. */
export const nameKey: KeyCodec<string> = {
  encode: (name) => name,
  decode: (text) => (text ? text : undefined),
};

/**
 * Keys made of named string fields, joined by '/' in the order given. A field must not contain
 * '/' except the last (Kubernetes names and namespaces never do; a last field may).
 */
export function fieldsKey<const F extends readonly [string, ...string[]]>(
  ...fields: F
): KeyCodec<{ [P in F[number]]: string }> {
  type K = { [P in F[number]]: string };
  return {
    encode: (key: K) => fields.map((f) => key[f as F[number]]).join('/'),
    decode: (text) => {
      const parts = text.split('/');
      if (parts.length < fields.length) return undefined;
      const last = parts.slice(fields.length - 1).join('/');
      const values = [...parts.slice(0, fields.length - 1), last];
      if (values.some((v) => !v)) return undefined;
      return Object.fromEntries(fields.map((f, i) => [f, values[i]])) as K;
    },
  };
}

/** a namespaced object's key: namespace/name, as the informers key their caches */
export const objectKey = fieldsKey('namespace', 'name');
export type ObjectKey = { namespace: string; name: string };

/** The one key of a loop that looks at one thing (a Secret, a timer). */
export function singletonKey<const S extends string>(name: S): KeyCodec<S> {
  return { encode: () => name, decode: (text) => (text === name ? name : undefined) };
}

/**
 * A key that is either one special key (a sweep over everything) or a key of another codec.
 * The special key's text must be one the other codec never makes.
 */
export function orSpecial<const S extends string, K>(special: S, other: KeyCodec<K>): KeyCodec<S | K> {
  return {
    encode: (key) => (key === special ? special : other.encode(key as K)),
    decode: (text) => (text === special ? special : other.decode(text)),
  };
}

/** a workload's key, in the one field order every loop uses: kind, namespace, name */
export type WorkloadKey<Kind extends string = string> = { kind: Kind; namespace: string; name: string };
export const workloadKey = <Kind extends string = string>() =>
  fieldsKey('kind', 'namespace', 'name') as KeyCodec<WorkloadKey<Kind>>;
