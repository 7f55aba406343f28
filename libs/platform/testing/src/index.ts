export { TEST_DATABASE_SERVER, createTestDatabase, createTestDatabaseFrom, type DatabaseTemplate, type TestDatabase } from './databases';
export { TEST_NATS_URL, deleteTestStreams, testStreams, uniqueBusPrefix } from './bus';
export { TEST_CHROMIUM_PATH, testConfig, testEnv, testKeyEncryptionKey } from './config';
export { freePort, http, waitFor, type HttpResult } from './http';
export { FakeClock } from '@svc/config';
export { TcpProxy } from './tcp-proxy';
export { LoopbackReceiver, type ReceivedWebhook, type Responder } from './loopback-receiver';
export { startLoopbackWitness, type LoopbackWitness } from './loopback-witness';
