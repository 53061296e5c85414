import { type ReactNode, createContext, useCallback, useContext, useEffect, useMemo, useState } from "react";
import { commands } from "../bindings";
import { plain } from "../api/call";
import type { MatrixCell, TimezoneInfo } from "../api/types";
import { useSession } from "./session";

/** A timezone as forms and tables use it. */
export type Zone = { iana: string; name: string | null; label: string };

/**
 * Small lookups forms need, loaded once per sign-in. Entities (advertisers, campaigns)
 * are not here: pickers ask the query commands for a few at a time.
 */
export type ReferenceData = {
  timezones: TimezoneInfo[];
  matrix: MatrixCell[];
  /** The zone of a timezone name (an advertiser's `timezoneName`, a row's `timezone`), UTC when unknown. */
  zoneOf: (name: string | null | undefined) => Zone;
};

const Ctx = createContext<ReferenceData | null>(null);

export function useReference(): ReferenceData {
  const v = useContext(Ctx);
  if (!v) throw new Error("useReference outside ReferenceProvider");
  return v;
}

export function ReferenceProvider({ children }: { children: ReactNode }) {
  const signedIn = useSession().snapshot.session !== null;
  const [timezones, setTimezones] = useState<TimezoneInfo[]>([]);
  const [matrix, setMatrix] = useState<MatrixCell[]>([]);

  useEffect(() => {
    if (!signedIn) return;
    let live = true;
    void plain(commands.timezones(), { quiet: true }).then((t) => {
      if (live && t) setTimezones(t);
    });
    void plain(commands.creativeMatrix(), { quiet: true }).then((m) => {
      if (live && m) setMatrix(m);
    });
    return () => {
      live = false;
    };
  }, [signedIn]);

  const zoneOf = useCallback(
    (name: string | null | undefined): Zone => {
      const tz = name ? timezones.find((t) => t.name === name) : undefined;
      if (tz) return { iana: tz.iana, name: tz.name, label: tz.label };
      return { iana: "UTC", name: name ?? null, label: name ? `${name} (UTC)` : "UTC" };
    },
    [timezones],
  );
  const value = useMemo(() => ({ timezones, matrix, zoneOf }), [timezones, matrix, zoneOf]);
  return <Ctx.Provider value={value}>{children}</Ctx.Provider>;
}
