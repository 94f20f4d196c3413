// The map's density: full tiles (name, heartbeat, pod marks) or compact squares (state
// colour only, name on hover and in the accessible name) so that thousands of nodes fit one
// screen. "auto" goes compact above a node count where tiles no longer fit a screen.
export type DensityChoice = 'auto' | 'tiles' | 'compact';
export type Density = 'tiles' | 'compact';

export const AUTO_COMPACT_ABOVE = 1500;

export function effectiveDensity(choice: DensityChoice, nodeCount: number): Density {
  if (choice !== 'auto') return choice;
  return nodeCount > AUTO_COMPACT_ABOVE ? 'compact' : 'tiles';
}

export function parseDensity(v: string | null | undefined): DensityChoice {
  return v === 'tiles' || v === 'compact' ? v : 'auto';
}
