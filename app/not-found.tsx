import Link from 'next/link';

export default function NotFound() {
  return (
    <div className="m-4 text-sm">
      <h1 className="mb-1 font-semibold">Not found</h1>
      <p className="text-dim">
        No such page.{' '}
        <Link href="/" className="underline">
          Back to the cluster map
        </Link>
      </p>
    </div>
  );
}
