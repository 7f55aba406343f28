// Integration and end-to-end tests talk to real Postgres and NATS and boot whole regions.
jest.setTimeout(60_000);
