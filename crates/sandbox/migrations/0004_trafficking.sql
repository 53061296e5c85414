-- Ad-order status (POST /v1/adorder/updateStatus): 0 Inactive, 1 Active, 2 Archived,
-- 3 Paused, 4 Completed. Kept out of the body, as getAllAdOrders documents no status.
-- Ad orders of an older database start Inactive, as new ones do.
ALTER TABLE ad_orders ADD COLUMN status INTEGER NOT NULL DEFAULT 0;

-- Which creatives an ad order serves. The interface has no endpoint that makes them:
-- the seed and the admin route do.
CREATE TABLE creative_ad_orders (
    creative_id INTEGER NOT NULL REFERENCES creatives(id),
    order_id    INTEGER NOT NULL REFERENCES ad_orders(id),
    PRIMARY KEY (creative_id, order_id)
) WITHOUT ROWID;
CREATE INDEX creative_ad_orders_order ON creative_ad_orders(order_id);

CREATE INDEX creatives_campaign ON creatives(account_id, json_extract(body, '$.campaignId'));
CREATE INDEX ad_orders_campaign ON ad_orders(account_id, campaign_id);
