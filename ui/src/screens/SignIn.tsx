import { type FormEvent, useEffect, useState } from "react";
import { commands, events } from "../bindings";
import { call, unwrap } from "../api/call";
import { toast } from "../api/toast";
import type { AppSnapshot, PartnerStarted } from "../api/types";
import type { SessionView } from "../state/session";
import { listenSafely } from "../state/events";

type Tab = "user" | "partner";

export function SignIn({ snapshot, onSnapshot }: { snapshot: SessionView; onSnapshot: (s: AppSnapshot) => void }) {
  const [tab, setTab] = useState<Tab>("user");
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [clientId, setClientId] = useState("");
  const [clientSecret, setClientSecret] = useState("");
  const [busy, setBusy] = useState(false);
  const [waitingBrowser, setWaitingBrowser] = useState<PartnerStarted | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [adding, setAdding] = useState(false);
  const [profileName, setProfileName] = useState("");
  const [profileUrl, setProfileUrl] = useState("");
  const demo = snapshot.demo;
  // A partner sign-in that came back from the browser and failed: shown here, where the
  // buyer can start again. Links that answer no sign-in are ignored by the app.
  useEffect(
    () =>
      listenSafely(events.partnerSignInFailed.listen, (f) => {
        setWaitingBrowser(null);
        setError(f.message);
      }),
    [],
  );
  const active = snapshot.profiles.find((p) => p.id === snapshot.activeId);

  const signIn = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const r = await call(commands.signIn(username, password), { quiet: true });
    setBusy(false);
    if (r.ok) onSnapshot(r.data);
    else setError(r.error.message);
  };

  const partner = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const r = await call(commands.partnerSignIn(clientId, clientSecret), { quiet: true });
    setBusy(false);
    if (r.ok) setWaitingBrowser(r.data);
    else setError(r.error.message);
  };

  const useDemo = () => {
    if (!demo) return;
    if (tab === "user") {
      setUsername(demo.username);
      setPassword(demo.password);
    } else {
      setClientId(demo.partnerClientId);
      setClientSecret(demo.partnerClientSecret);
    }
  };

  const switchProfile = async (id: string) => {
    const s = await unwrap(commands.switchProfile(id));
    if (s) onSnapshot(s);
  };

  const addProfile = async (e: FormEvent) => {
    e.preventDefault();
    const s = await unwrap(commands.addProfile(profileName, profileUrl));
    if (s) {
      onSnapshot(s);
      setAdding(false);
      setProfileName("");
      setProfileUrl("");
      toast(`Profile “${profileName}” added.`, "success");
    }
  };

  const toggleSandbox = async () => {
    const s = await unwrap(commands.setSandboxRunning(snapshot.sandbox !== "running"));
    if (s) onSnapshot(s);
  };

  return (
    <main className="signin" aria-label="Sign in">
      <div className="signin-card">
        <h1>
          <span className="logo" aria-hidden="true">
            ✈
          </span>{" "}
          Flightdeck
        </h1>
        <div className="field">
          <label htmlFor="profile">Profile</label>
          <div className="row">
            <select id="profile" name="profile" value={snapshot.activeId} onChange={(e) => void switchProfile(e.target.value)}>
              {snapshot.profiles.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name}
                  {p.embedded ? "" : ` — ${p.baseUrl}`}
                </option>
              ))}
            </select>
            <button type="button" data-action="add-profile" aria-expanded={adding} onClick={() => setAdding((a) => !a)}>
              Add profile…
            </button>
          </div>
          {active && (
            <div className="muted small">
              {active.embedded ? "Embedded local sandbox at " : ""}
              <span data-profile-url={active.baseUrl}>{active.baseUrl}</span>
              {snapshot.sandbox !== null && (
                <>
                  {" · "}
                  sandbox {snapshot.sandbox}{" "}
                  <button type="button" className="link" data-action="toggle-sandbox" onClick={() => void toggleSandbox()}>
                    {snapshot.sandbox === "running" ? "Stop local sandbox" : "Start local sandbox"}
                  </button>
                </>
              )}
              {" · "}
              <span data-status={snapshot.online ? "online" : "offline"}>{snapshot.online ? "online" : "offline"}</span>
            </div>
          )}
        </div>
        {adding && (
          <form className="add-profile" onSubmit={addProfile} aria-label="Add profile">
            <div className="field">
              <label htmlFor="profile-name">Name</label>
              <input id="profile-name" name="profileName" value={profileName} onChange={(e) => setProfileName(e.target.value)} />
            </div>
            <div className="field">
              <label htmlFor="profile-url">Base URL</label>
              <input id="profile-url" name="baseUrl" type="url" placeholder="https://api.example.com" value={profileUrl} onChange={(e) => setProfileUrl(e.target.value)} />
            </div>
            <button type="submit" className="primary">
              Add
            </button>
          </form>
        )}

        <div className="tabs" role="tablist" aria-label="Who signs in">
          <button type="button" role="tab" id="tab-user" data-tab="user" aria-selected={tab === "user"} aria-controls="panel-user" onClick={() => setTab("user")}>
            Advertiser / agency
          </button>
          <button type="button" role="tab" id="tab-partner" data-tab="partner" aria-selected={tab === "partner"} aria-controls="panel-partner" onClick={() => setTab("partner")}>
            Data partner
          </button>
        </div>

        {demo && (
          <div className="demo" aria-label="Demo credentials">
            <div>
              <strong>Demo sign-in</strong> (local sandbox)
            </div>
            {tab === "user" ? (
              <div className="mono small">
                user <b>{demo.username}</b> · password <b>{demo.password}</b>
              </div>
            ) : (
              <div className="mono small">
                client <b>{demo.partnerClientId}</b> · secret <b>{demo.partnerClientSecret}</b>
                <br />
                browser login <b>{demo.partnerLogin}</b> / <b>{demo.partnerPassword}</b>
              </div>
            )}
            <button type="button" data-action="use-demo" onClick={useDemo}>
              Use demo sign-in
            </button>
          </div>
        )}

        {snapshot.notice && !error && (
          <div className="form-errors" role="alert" data-notice="sign-in">
            {snapshot.notice}
          </div>
        )}
        {error && (
          <div className="form-errors" role="alert" data-toast="error">
            {error}
          </div>
        )}

        {tab === "user" ? (
          <form id="panel-user" role="tabpanel" aria-labelledby="tab-user" onSubmit={signIn}>
            <div className="field">
              <label htmlFor="username">Username</label>
              <input id="username" name="username" autoComplete="username" value={username} onChange={(e) => setUsername(e.target.value)} autoFocus />
            </div>
            <div className="field">
              <label htmlFor="password">Password</label>
              <input id="password" name="password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} />
            </div>
            <button type="submit" className="primary wide-button" data-action="sign-in" disabled={busy}>
              {busy ? "Signing in…" : "Sign in"}
            </button>
          </form>
        ) : (
          <form id="panel-partner" role="tabpanel" aria-labelledby="tab-partner" onSubmit={partner}>
            <div className="field">
              <label htmlFor="clientId">Client id</label>
              <input id="clientId" name="clientId" value={clientId} onChange={(e) => setClientId(e.target.value)} />
            </div>
            <div className="field">
              <label htmlFor="clientSecret">Client secret</label>
              <input id="clientSecret" name="clientSecret" type="password" value={clientSecret} onChange={(e) => setClientSecret(e.target.value)} />
            </div>
            <button type="submit" className="primary wide-button" data-action="partner-sign-in" disabled={busy}>
              Sign in with browser
            </button>
            {waitingBrowser && (
              <div className="muted small" role="status">
                {waitingBrowser.opened
                  ? "Finish signing in in your browser; Flightdeck continues by itself. "
                  : "The browser could not be opened. Open the sign-in page yourself: "}
                <a
                  data-authorize-url={waitingBrowser.authorizeUrl}
                  href={waitingBrowser.authorizeUrl}
                  target="_blank"
                  rel="noreferrer"
                  onClick={(e) => {
                    // The window does not follow links: the app opens the page in the browser.
                    e.preventDefault();
                    void call(commands.openSignInPage());
                  }}
                >
                  Open the sign-in page
                </a>
                {!waitingBrowser.opened && (
                  <input type="text" readOnly aria-label="Sign-in address" value={waitingBrowser.authorizeUrl} onFocus={(e) => e.target.select()} />
                )}
              </div>
            )}
          </form>
        )}
      </div>
    </main>
  );
}
