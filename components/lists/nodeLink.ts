'use client';
// Where a node leads: the map with its panel open (`/?node=a2-1`). The Nodes list's rows and
// name links go there; the map opens the panel for the node the address names.
import { useEffect, useRef } from 'react';

export const nodeHref = (name: string) => `/?${new URLSearchParams({ node: name })}`;

/** Once the cluster is known, selects the node named by `?node=` (read from the address once). */
export function useNodeParam(cluster: string | undefined, select: (name: string) => void): void {
  const done = useRef(false);
  const pick = useRef(select);
  pick.current = select;
  useEffect(() => {
    if (done.current || !cluster) return;
    done.current = true;
    const name = new URLSearchParams(window.location.search).get('node');
    if (name) pick.current(name);
  }, [cluster]);
}
