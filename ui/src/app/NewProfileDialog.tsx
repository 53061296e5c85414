import { type FormEvent, useState } from "react";
import { commands } from "../bindings";
import { call } from "../api/call";
import { toast } from "../api/toast";
import type { AppSnapshot, FieldError } from "../api/types";
import { Modal } from "../bulk/Modal";

/** File → New profile…: a profile for another service (its own workspace and sign-in), switched to at once. */
export function NewProfileDialog({ onSnapshot, onClose }: { onSnapshot: (s: AppSnapshot) => void; onClose: () => void }) {
  const [name, setName] = useState("");
  const [baseUrl, setBaseUrl] = useState("");
  const [errors, setErrors] = useState<FieldError[]>([]);
  const [message, setMessage] = useState<string | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setErrors([]);
    setMessage(null);
    const r = await call(commands.addProfile(name, baseUrl), { quiet: true, onFieldErrors: setErrors });
    if (r.ok) {
      onSnapshot(r.data);
      toast(`Profile “${name}” added.`, "success");
      onClose();
    } else {
      setMessage(r.error.message);
    }
  };
  const at = (field: string) => errors.filter((x) => x.field === field).map((x) => x.message);
  return (
    <Modal label="New profile" onClose={onClose}>
      <form className="add-profile" onSubmit={submit} aria-label="New profile" data-form="new-profile">
        <div className="field">
          <label htmlFor="new-profile-name">Name</label>
          <input id="new-profile-name" name="name" value={name} onChange={(e) => setName(e.target.value)} autoFocus />
          {at("name").map((m) => (
            <div key={m} className="field-error">
              {m}
            </div>
          ))}
        </div>
        <div className="field">
          <label htmlFor="new-profile-url">Base URL</label>
          <input id="new-profile-url" name="baseUrl" type="url" placeholder="https://api.example.com" value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} />
          {at("baseUrl").map((m) => (
            <div key={m} className="field-error">
              {m}
            </div>
          ))}
        </div>
        {message && errors.length === 0 && (
          <div className="form-errors" role="alert">
            {message}
          </div>
        )}
        <div className="row">
          <button type="submit" className="primary">
            Add and switch
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Modal>
  );
}
