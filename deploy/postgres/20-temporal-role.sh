#!/bin/sh
# Runs once, when the postgres container initialises an empty data directory (docker-entrypoint-initdb.d).
# Temporal gets a role of its own, owner of its two databases only (made here, so it needs neither CREATEDB nor the
# superuser; auto-setup runs with SKIP_DB_CREATE and only creates and migrates their schemas). The app's role and
# Temporal's cannot read each other's databases. TEMPORAL_DB_PASSWORD: letters and digits only (it goes into SQL).
set -eu
case "$TEMPORAL_DB_PASSWORD" in
  *[!A-Za-z0-9]*|'') echo "TEMPORAL_DB_PASSWORD must be letters and digits only" >&2; exit 1 ;;
esac
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres <<SQL
create role temporal login password '$TEMPORAL_DB_PASSWORD';
create database temporal owner temporal;
create database temporal_visibility owner temporal;
revoke all on database temporal from public;
revoke all on database temporal_visibility from public;
SQL
