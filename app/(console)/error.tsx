'use client';

export default function ErrorPage({
  error,
  reset,
}: {
  error: Error & { digest?: string };
  reset: () => void;
}) {
  return (
    <div role="alert" className="m-4 rounded border border-crit/50 bg-crit/10 p-4 text-sm">
      <h1 className="mb-1 font-semibold text-crit">This view failed to render</h1>
      <p className="mb-3 font-mono text-xs text-dim">{error.message}</p>
      <button type="button" onClick={reset} className="rounded border border-line bg-panel px-2 py-1">
        Try again
      </button>
    </div>
  );
}
