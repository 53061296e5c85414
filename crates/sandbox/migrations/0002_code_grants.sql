-- Tokens issued from an authorization code carry the code's grant id, so that a reuse
-- of the code can revoke them (RFC 6749 §4.1.2). Codes and refresh tokens from before
-- this migration have none, and nothing to revoke them by.
ALTER TABLE auth_codes ADD COLUMN grant_id TEXT;
ALTER TABLE refresh_tokens ADD COLUMN grant_id TEXT;
CREATE INDEX refresh_tokens_by_grant ON refresh_tokens(grant_id) WHERE grant_id IS NOT NULL;

-- Grants whose code was presented again: their access tokens are refused.
CREATE TABLE revoked_grants (
    grant_id   TEXT PRIMARY KEY,
    revoked_at INTEGER NOT NULL
) WITHOUT ROWID;
