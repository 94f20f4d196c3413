'use client';
// The lists' toolbar controls: a search box (focused by the '/' shortcut through its data-search
// attribute, see components/shell/Shell.tsx) and state filter chips with counts.

export function FilterChips<S extends string>({
  states,
  active,
  onToggle,
  label,
  counts,
  dot,
  names,
}: {
  states: readonly S[];
  active: ReadonlySet<S>;
  onToggle: (s: S) => void;
  label: string;
  counts: Record<S, number>;
  dot: Record<S, string>;
  names?: Record<S, string>;
}) {
  return (
    <fieldset className="flex flex-wrap items-center gap-1">
      <legend className="sr-only">{label}</legend>
      {states.map((s) => (
        <button
          key={s}
          type="button"
          aria-pressed={active.has(s)}
          onClick={() => onToggle(s)}
          className={`flex items-center gap-1 rounded border px-1.5 py-0.5 text-xs ${
            active.has(s) ? 'border-info bg-info/15 text-fg' : 'border-line text-dim hover:text-fg'
          }`}
        >
          {/* named by what it shows ("Filter Ready 12"), so that a voice command saying the
              visible words finds it (WCAG 2.5.3) */}
          <span className="sr-only">Filter </span>
          <span className={`inline-block h-2 w-2 rounded-sm ${dot[s]}`} aria-hidden="true" />
          {names?.[s] ?? s} <span className="tabular-nums">{counts[s]}</span>
        </button>
      ))}
    </fieldset>
  );
}

export function SearchBox({
  value,
  onChange,
  placeholder,
  label,
}: {
  value: string;
  onChange: (v: string) => void;
  placeholder: string;
  label: string;
}) {
  return (
    <input
      data-search
      type="search"
      value={value}
      onChange={(e) => onChange(e.target.value)}
      placeholder={`${placeholder}  /`}
      aria-label={label}
      className="w-72 rounded border border-line bg-panel px-2 py-1 text-sm"
    />
  );
}
