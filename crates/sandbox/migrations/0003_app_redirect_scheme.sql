-- The desktop app's sign-in redirect moves to a reverse-DNS scheme (RFC 8252 §7.1):
-- com.flightdeck.desktop:/oauth/callback. A client that had the old flightdeck:// one
-- (the demo seed's data partner, in databases made before this) gets the new one
-- beside it, so an existing embedded sandbox keeps signing the app's partners in.
UPDATE oauth_clients
SET redirect_uris = json_insert(redirect_uris, '$[#]', 'com.flightdeck.desktop:/oauth/callback')
WHERE EXISTS (SELECT 1 FROM json_each(redirect_uris) WHERE value = 'flightdeck://oauth/callback')
  AND NOT EXISTS (
    SELECT 1 FROM json_each(redirect_uris) WHERE value = 'com.flightdeck.desktop:/oauth/callback'
  );
