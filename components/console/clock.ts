'use client';
// Shared clocks: one timer per tick interval, however many components read it. Only the
// components that show a live age or countdown subscribe, so the map does not re-render.
import { useSyncExternalStore } from 'react';

interface Clock {
  now: number;
  listeners: Set<() => void>;
  timer?: ReturnType<typeof setInterval>;
}
const clocks = new Map<number, Clock>();

function clock(interval: number): Clock {
  let c = clocks.get(interval);
  if (!c) clocks.set(interval, (c = { now: Date.now(), listeners: new Set() }));
  return c;
}

function subscribe(interval: number, l: () => void): () => void {
  const c = clock(interval);
  c.listeners.add(l);
  if (!c.timer) {
    c.now = Date.now();
    c.timer = setInterval(() => {
      c.now = Date.now();
      for (const f of c.listeners) f();
    }, interval);
  }
  return () => {
    c.listeners.delete(l);
    if (c.listeners.size === 0 && c.timer) {
      clearInterval(c.timer);
      c.timer = undefined;
    }
  };
}

const subscribers = new Map<number, (l: () => void) => () => void>();
function subscriberFor(interval: number) {
  let s = subscribers.get(interval);
  if (!s) subscribers.set(interval, (s = (l) => subscribe(interval, l)));
  return s;
}

/** Current time (ms), re-rendering every `interval` ms. 0 during server rendering. */
export function useNow(interval = 1000): number {
  return useSyncExternalStore(
    subscriberFor(interval),
    () => clock(interval).now,
    () => 0,
  );
}
