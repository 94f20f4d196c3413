'use client';
// A cancellable countdown: start() shows N, N-1, ... and calls onZero at 0 unless cancel() came
// first. Ticks from a deadline, so a slow render never stretches it.
import { useCallback, useEffect, useRef, useState } from 'react';

export function useCountdown(seconds: number, onZero: () => void) {
  const [deadline, setDeadline] = useState<number | undefined>(undefined);
  const [left, setLeft] = useState(seconds);
  const fire = useRef(onZero);
  fire.current = onZero;

  useEffect(() => {
    if (deadline === undefined) return;
    let fired = false;
    const tick = () => {
      const remaining = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
      setLeft(remaining);
      // once: an interval tick may still come before the cleanup
      if (remaining > 0 || fired) return;
      fired = true;
      setDeadline(undefined);
      fire.current();
    };
    tick();
    const timer = setInterval(tick, 200);
    return () => clearInterval(timer);
  }, [deadline]);

  const start = useCallback(() => {
    setLeft(seconds);
    setDeadline(Date.now() + seconds * 1000);
  }, [seconds]);
  const cancel = useCallback(() => setDeadline(undefined), []);
  return { running: deadline !== undefined, left, start, cancel };
}
