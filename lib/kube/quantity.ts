// Kubernetes resource quantities ("10Gi", "500m", "1.5e3") as plain numbers: one parser for
// the scheduler's requests and the volume binder's capacities. Pure.

const suffixes: Record<string, number> = {
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
};

const grammar = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)|[eE]([+-]?\d+))?$/;

/** The quantity's value in base units, or undefined when it does not parse. */
export function parseQuantity(q: string | number | undefined | null): number | undefined {
  if (typeof q === 'number') return Number.isFinite(q) ? q : undefined;
  const m = grammar.exec((q ?? '').trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  if (m[3] !== undefined) return n * 10 ** Number(m[3]);
  return n * suffixes[m[2] ?? ''];
}
