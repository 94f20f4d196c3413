'use client';
import { memo, useLayoutEffect, useRef } from 'react';
import type { PodView } from '@/lib/console/protocol';
import { markGrid, markPosition } from '@/lib/console/ui/marks';
import { POD_COLOR } from '@/lib/console/ui/states';

/** One small canvas per node: a mark per pod, coloured by state. Redrawn only when `pods` changes. */
export const PodMarks = memo(function PodMarks({ pods, width }: { pods: readonly PodView[]; width: number }) {
  const ref = useRef<HTMLCanvasElement>(null);
  const g = markGrid(pods.length, width);
  useLayoutEffect(() => {
    const canvas = ref.current;
    if (!canvas) return;
    const dpr = window.devicePixelRatio || 1;
    const w = Math.round(g.width * dpr);
    const h = Math.round(g.height * dpr);
    if (canvas.width !== w) canvas.width = w;
    if (canvas.height !== h) canvas.height = h;
    const ctx = canvas.getContext('2d');
    if (!ctx) return;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, g.width, g.height);
    for (let i = 0; i < pods.length; i++) {
      const p = pods[i];
      const { x, y } = markPosition(g, i);
      ctx.fillStyle = POD_COLOR[p.state] ?? POD_COLOR.Unknown;
      if (p.state === 'Terminating' || p.state === 'Pending') {
        // hollow-ish marks for transitional states, so they read without colour too
        ctx.fillRect(x, y, g.size, g.size);
        ctx.clearRect(x + 1.5, y + 1.5, g.size - 3, g.size - 3);
      } else {
        ctx.fillRect(x, y, g.size, g.size);
      }
    }
  }, [pods, g.width, g.height, g]);
  if (pods.length === 0)
    return <div className="h-[5px] text-[10px] leading-none text-dim" aria-hidden="true" />;
  return <canvas ref={ref} style={{ width: g.width, height: g.height, display: 'block' }} />;
});
