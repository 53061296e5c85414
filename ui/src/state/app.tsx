import type { ReactNode } from "react";
import type { AppSnapshot } from "../api/types";
import { NavigationProvider } from "./navigation";
import { ReferenceProvider } from "./reference";
import { SessionProvider } from "./session";
import { SyncProvider } from "./sync";

/**
 * The UI's state, in separate contexts so each change re-renders only its readers:
 * session (snapshot, sign-in), navigation (screen, scope, editor), reference data
 * (timezones, the creative matrix) and sync (post and download progress, pending count).
 * Table data is not here: each table asks for the window it shows.
 */
export function AppProvider({ initial, children }: { initial: AppSnapshot; children: ReactNode }) {
  return (
    <SessionProvider initial={initial}>
      <ReferenceProvider>
        <NavigationProvider>
          <SyncProvider>{children}</SyncProvider>
        </NavigationProvider>
      </ReferenceProvider>
    </SessionProvider>
  );
}
