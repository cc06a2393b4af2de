#!/bin/sh
# Runs once, when the postgres container initialises an empty data directory (docker-entrypoint-initdb.d).
# The app gets two roles of its own, neither a superuser, so an SQL bug or a leaked DATABASE_URL cannot read
# Temporal's databases, run COPY ... PROGRAM or change other roles:
# - `switchyard` owns the database and its schema; only the one-shot `migrate` service connects as it.
# - `switchyard_app`, the API's and the worker's, reads and writes rows and cannot create, alter or drop anything:
#   the owner's default privileges grant it every table a migration creates (db/runtime-role.ts does the same for the
#   embedded database of `npm start` and the tests).
# MIGRATION_DB_PASSWORD and APP_DB_PASSWORD: letters and digits only (they go into URLs and into this SQL).
set -eu
for password in "$MIGRATION_DB_PASSWORD" "$APP_DB_PASSWORD"; do
  case "$password" in
    *[!A-Za-z0-9]*|'') echo "MIGRATION_DB_PASSWORD and APP_DB_PASSWORD must be letters and digits only" >&2; exit 1 ;;
  esac
done
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres <<SQL
create role switchyard login password '$MIGRATION_DB_PASSWORD';
create role switchyard_app login password '$APP_DB_PASSWORD';
alter database switchyard owner to switchyard;
revoke all on database switchyard from public;
grant connect on database switchyard to switchyard_app;
SQL
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname switchyard <<SQL
grant usage on schema public to switchyard_app;
alter default privileges for role switchyard in schema public grant select, insert, update, delete on tables to switchyard_app;
alter default privileges for role switchyard in schema public grant usage, select on sequences to switchyard_app;
SQL
