import type { ReactNode } from 'react';
import { Providers } from '@/components/console/providers';
import { Shell } from '@/components/shell/Shell';

/** Every page of the console proper: live data, the cluster switcher, the signed-in person. */
export default function ConsoleLayout({ children }: { children: ReactNode }) {
  return (
    <Providers>
      <Shell>{children}</Shell>
    </Providers>
  );
}
