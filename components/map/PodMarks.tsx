'use client';
import { memo, useLayoutEffect, useMemo, useRef } from 'react';
import type { PodView } from '@/lib/console/protocol';
import { type MarkGrid, markGrid, markPosition } from '@/lib/console/ui/marks';
import { type PodProtectorIndex, podKey } from '@/lib/console/ui/protection';
import { POD_COLOR } from '@/lib/console/ui/states';

// Canvases are drawn only while on (or near) the screen: at 1000 nodes most racks are
// scrolled away, and drawing them all made the first map render ~250 ms slower. One shared
// IntersectionObserver tells each canvas when it comes into view; it then draws its latest pods.
const drawers = new WeakMap<Element, () => void>();
const onScreen = new WeakSet<Element>();
let observer: IntersectionObserver | undefined;

function visibility(): IntersectionObserver {
  observer ??= new IntersectionObserver(
    (entries) => {
      for (const e of entries) {
        if (!e.isIntersecting) {
          onScreen.delete(e.target);
          continue;
        }
        onScreen.add(e.target);
        drawers.get(e.target)?.();
      }
    },
    { rootMargin: '300px' },
  );
  return observer;
}

/** the dot inside a protected pod's mark: dark on every state colour */
const GUARD_DOT = 'rgba(15, 23, 42, 0.9)';

function draw(canvas: HTMLCanvasElement, pods: readonly PodView[], g: MarkGrid, guarded?: PodProtectorIndex) {
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
    if (guarded?.has(podKey(p))) {
      ctx.fillStyle = GUARD_DOT;
      ctx.fillRect(x + 1.5, y + 1.5, g.size - 3, g.size - 3);
    }
  }
}

/**
 * One small canvas per node: a mark per pod, coloured by state, with a dark centre when a
 * PodProtector guards the pod. Redrawn only when `pods` or the protection index changes.
 */
export const PodMarks = memo(function PodMarks({
  pods,
  width,
  guarded,
}: {
  pods: readonly PodView[];
  width: number;
  guarded?: PodProtectorIndex;
}) {
  const ref = useRef<HTMLCanvasElement>(null);
  const g = useMemo(() => markGrid(pods.length, width), [pods.length, width]);
  useLayoutEffect(() => {
    const canvas = ref.current;
    if (!canvas) return;
    drawers.set(canvas, () => draw(canvas, pods, g, guarded));
    if (onScreen.has(canvas)) draw(canvas, pods, g, guarded);
  }, [pods, g, guarded]);
  const hasCanvas = pods.length > 0;
  // biome-ignore lint/correctness/useExhaustiveDependencies: the canvas mounts and unmounts with hasCanvas
  useLayoutEffect(() => {
    const canvas = ref.current;
    if (!canvas) return;
    const io = visibility();
    io.observe(canvas);
    return () => {
      io.unobserve(canvas);
      onScreen.delete(canvas);
    };
  }, [hasCanvas]);
  if (!hasCanvas) return <div className="h-[5px] text-[10px] leading-none text-dim" aria-hidden="true" />;
  return <canvas ref={ref} style={{ width: g.width, height: g.height, display: 'block' }} />;
});
