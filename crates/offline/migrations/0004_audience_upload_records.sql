-- Flightdeck workspace, version 4.
-- The service's answer to an audience upload (AudienceDataResult JSON: published, bad
-- records …), kept per upload so the buyer sees what each one did. NULL for other changes
-- and for uploads not answered yet.
ALTER TABLE outbox ADD COLUMN result TEXT;

-- Uploads queued by version 3 carry the invented `{"identifiers": [...]}` body. The
-- service takes an array of records `{serviceSegmentId, countryCode, values}`: the open
-- ones become one record for the segment (US, the country every upload of version 3 was
-- meant for), a draft segment's id filled in when it lands, as for any new upload.
UPDATE outbox SET
    payload = json_array(json_object(
        'countryCode', 'US',
        'serviceSegmentId', CASE WHEN key GLOB 'seg:*' THEN substr(key, 5) ELSE '' END,
        'values', json(json_extract(payload, '$.identifiers'))
    )),
    parents = CASE WHEN key GLOB 'local:*'
        THEN json_array(json_object(
            'pointer', '/0/serviceSegmentId',
            'target', json_object('kind', 'audience_segment',
                                  'key', json_object('type', 'local', 'value', substr(key, 7)))))
        ELSE '[]' END
WHERE op = 'audience_data' AND status <> 'applied'
  AND json_type(payload, '$.identifiers') = 'array';
