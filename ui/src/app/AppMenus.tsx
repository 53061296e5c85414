import { Suspense, useEffect, useState } from "react";
import { deferred } from "../util/deferred";
import type { AppSnapshot } from "../api/types";
import { useMenuBar, useMenuCommand } from "../state/menu";
import { UpdateBanner, checkForUpdate } from "./Updates";

// Loaded when first opened, not on the start's critical path.
const NewProfileDialog = deferred(() => import("./NewProfileDialog").then((m) => m.NewProfileDialog));
const SettingsDialog = deferred(() => import("./Settings").then((m) => m.SettingsDialog));
const AboutDialog = deferred(() => import("./Settings").then((m) => m.AboutDialog));

type Open = "settings" | "about" | "new-profile" | null;

/**
 * What the menu bar opens on every screen (sign-in included): Settings, About, a new
 * profile, the update check; and the update offered at start.
 */
export function AppMenus({ onSnapshot }: { onSnapshot: (s: AppSnapshot) => void }) {
  const [open, setOpen] = useState<Open>(null);
  useMenuBar();
  useMenuCommand("settings", () => setOpen("settings"));
  useMenuCommand("about", () => setOpen("about"));
  useMenuCommand("newProfile", () => setOpen("new-profile"));
  useMenuCommand("checkForUpdates", () => void checkForUpdate(false));
  useEffect(() => {
    void checkForUpdate(true);
  }, []);
  const close = () => setOpen(null);
  return (
    <>
      <UpdateBanner />
      <Suspense fallback={null}>
        {open === "settings" && <SettingsDialog onClose={close} />}
        {open === "about" && <AboutDialog onClose={close} />}
        {open === "new-profile" && <NewProfileDialog onSnapshot={onSnapshot} onClose={close} />}
      </Suspense>
    </>
  );
}
