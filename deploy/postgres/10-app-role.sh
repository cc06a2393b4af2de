#!/bin/sh
# Runs once, when the postgres container initialises an empty data directory (docker-entrypoint-initdb.d).
# The app gets a role of its own that owns only its database: no superuser, so an SQL bug or a leaked DATABASE_URL
# cannot read Temporal's databases, run COPY ... PROGRAM or change other roles. Temporal keeps the bootstrap
# superuser, which its auto-setup needs to create its two databases. APP_DB_PASSWORD: letters and digits only
# (it goes into a URL and into this SQL).
set -eu
case "$APP_DB_PASSWORD" in
  *[!A-Za-z0-9]*|'') echo "APP_DB_PASSWORD must be letters and digits only" >&2; exit 1 ;;
esac
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres <<SQL
create role switchyard login password '$APP_DB_PASSWORD';
alter database switchyard owner to switchyard;
revoke all on database switchyard from public;
SQL
