'use client';
// The admission-history chart: step lines of the aggregated (aggregator's snapshot) and
// estimated (webhook's view, after admissions) available replicas, the minAvailable floor,
// and bars of the lag on a second axis: single-pod buckets vs compacted ones.
import { useMemo } from 'react';
import {
  Bar,
  CartesianGrid,
  ComposedChart,
  Legend,
  Line,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import { formatClock } from '@/lib/console/ui/format';
import type { HistoryPoint } from './types';

const C = {
  aggregated: 'var(--color-info)',
  estimated: 'var(--color-ok)',
  floor: 'var(--color-crit)',
  single: 'var(--color-warn)',
  compacted: 'var(--color-oos)',
  grid: 'var(--color-line)',
  text: 'var(--color-dim)',
};

/** The series with its last point repeated at `now`, so the steps reach the present. */
function withNow(points: readonly HistoryPoint[], now: number): HistoryPoint[] {
  const last = points.at(-1);
  if (!last || last.at >= now) return [...points];
  return [...points, { ...last, at: now, singleBuckets: 0, compactedBuckets: 0 }];
}

export function HistoryChart({
  points,
  minAvailable,
  now,
}: {
  points: readonly HistoryPoint[];
  minAvailable: number;
  now: number;
}) {
  const data = useMemo(() => withNow(points, now), [points, now]);
  if (points.length === 0) return <p className="text-sm text-dim">No history recorded yet.</p>;
  return (
    <div className="h-72 w-full">
      <ResponsiveContainer width="100%" height="100%">
        <ComposedChart data={data} margin={{ top: 8, right: 8, bottom: 0, left: -16 }} accessibilityLayer>
          <CartesianGrid stroke={C.grid} strokeDasharray="3 3" />
          <XAxis
            dataKey="at"
            type="number"
            scale="time"
            domain={['dataMin', 'dataMax']}
            tickFormatter={(t: number) => formatClock(t)}
            stroke={C.text}
            fontSize={11}
          />
          <YAxis yAxisId="replicas" allowDecimals={false} stroke={C.text} fontSize={11} />
          <YAxis yAxisId="lag" orientation="right" allowDecimals={false} stroke={C.text} fontSize={11} />
          <Tooltip
            labelFormatter={(t) => formatClock(Number(t))}
            contentStyle={{
              background: 'var(--color-panel)',
              borderColor: 'var(--color-line)',
              fontSize: 12,
            }}
          />
          <Legend wrapperStyle={{ fontSize: 12 }} />
          <Bar
            yAxisId="lag"
            dataKey="singleBuckets"
            name="Lag: single buckets"
            stackId="lag"
            fill={C.single}
            barSize={6}
          />
          <Bar
            yAxisId="lag"
            dataKey="compactedBuckets"
            name="Lag: compacted buckets"
            stackId="lag"
            fill={C.compacted}
            barSize={6}
          />
          <ReferenceLine
            yAxisId="replicas"
            y={minAvailable}
            stroke={C.floor}
            strokeDasharray="6 3"
            label={{
              value: `minAvailable ${minAvailable}`,
              fill: C.floor,
              fontSize: 11,
              position: 'insideTopLeft',
            }}
          />
          <Line
            yAxisId="replicas"
            type="stepAfter"
            dataKey="aggregated"
            name="Aggregated"
            stroke={C.aggregated}
            dot={false}
            strokeWidth={2}
            isAnimationActive={false}
          />
          <Line
            yAxisId="replicas"
            type="stepAfter"
            dataKey="estimated"
            name="Estimated"
            stroke={C.estimated}
            dot={false}
            strokeWidth={2}
            isAnimationActive={false}
          />
        </ComposedChart>
      </ResponsiveContainer>
    </div>
  );
}
