'use client';
// The guarded dialog's preview, kept live while the dialog is open: read again when what the
// guard decides on changes (the node's readiness and taints, the pod's incarnation and state —
// from the live socket's node and pod collections), on every fencing change (the fencing topic:
// a fence detected, fencing, fenced) and just after a coming fence is due. Nothing polls. It
// holds still while the countdown runs or once the action was sent: what the person confirmed
// is what the write is made conditional on — and once the pod it is about has left the API (or
// was replaced under its name): a new pod of that name is another dialog's business.
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { podKey } from '@/lib/console/protocol';
import { previewWatchKey, refetchDelayMs } from '@/lib/guard/livePreview';
import { useNodes, usePods } from '../console/live';
import { useLive } from '../console/useLive';
import { type ActionTarget, useActionsApi } from './api';

/** a burst of changes (a fence's steps, a node going Unknown) is one re-read */
const COALESCE_MS = 250;

export function useLivePreview(target: ActionTarget, hold: boolean) {
  const api = useActionsApi();
  const preview = useQuery({
    ...api.preview.queryOptions(target),
    staleTime: Number.POSITIVE_INFINITY,
    gcTime: 0,
    retry: false,
  });
  // the node and pod the guard reads, as the live collections have them
  const nodes = useNodes(target.cluster);
  const pods = usePods(target.cluster);
  const nodeName = preview.data?.node?.name;
  const pod =
    target.action === 'forceDeletePod'
      ? pods?.byKey.get(podKey({ namespace: target.namespace, name: target.name }))
      : undefined;
  const gone =
    target.action === 'forceDeletePod' && !!pods && !!preview.data && pod?.uid !== preview.data.target.uid;
  // a change while a read is under way reads again after it, never cancels it: with fencing
  // changes a second apart and a preview taking most of one, cancelling would land none
  const dirty = useRef(false);
  const refetch = useCoalescedRefetch(() => {
    if (preview.isFetching) dirty.current = true;
    else void preview.refetch({ cancelRefetch: false });
  }, hold || gone);
  useEffect(() => {
    if (preview.isFetching || !dirty.current) return;
    dirty.current = false;
    refetch();
  }, [preview.isFetching, refetch]);
  const key = previewWatchKey(nodeName ? nodes?.byKey.get(nodeName) : undefined, pod);
  const seen = useRef<string | undefined>(undefined);
  useEffect(() => {
    // only once both collections are there: their first arrival is no change
    if (!nodes || !pods || !preview.data) return;
    if (seen.current !== undefined && seen.current !== key) refetch();
    seen.current = key;
  }, [key, nodes, pods, preview.data, refetch]);

  // fencing changes come over the live channel's fencing topic
  useLive('fencing', target.cluster, () => refetch());

  // and once a coming fence is due
  const v = preview.data?.verdict;
  const fenceAt = v && !v.safe && v.wait && 'fenceAt' in v.wait ? v.wait.fenceAt : undefined;
  useEffect(() => {
    const delay = refetchDelayMs(fenceAt, Date.now());
    if (delay === undefined) return;
    const timer = setTimeout(refetch, delay);
    return () => clearTimeout(timer);
  }, [fenceAt, refetch]);

  return { preview, gone };
}

/** A stable function that re-reads after COALESCE_MS, unless the dialog holds still. */
function useCoalescedRefetch(run: () => void, hold: boolean): () => void {
  const latest = useRef({ run, hold });
  latest.current = { run, hold };
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const fn = useRef(() => {
    if (latest.current.hold || timer.current) return;
    timer.current = setTimeout(() => {
      timer.current = undefined;
      if (!latest.current.hold) latest.current.run();
    }, COALESCE_MS);
  });
  useEffect(() => () => clearTimeout(timer.current), []);
  return fn.current;
}
