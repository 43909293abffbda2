/**
 * A MongoDB server in a container for the contract suites, started as a single-node replica set as the
 * production topology runs it (so commits run in transactions): `url` connects to it directly, `admin`
 * is a client for inspecting and dropping databases, `stop` closes that client and the container. The
 * fault suites also freeze the server (`pause`, `resume`: its processes stop, connections stay open and
 * unanswered) and make it step down from primary (`stepDown`), then wait until it is primary again.
 */
import { MongoClient } from 'mongodb';
import { GenericContainer, getContainerRuntimeClient, Wait, type StartedTestContainer } from 'testcontainers';
import { untilReady } from './container-runtime';

const IMAGE = process.env.MONGODB_IMAGE ?? 'mongo:7';

export type MongoServer = {
  url: string;
  admin: MongoClient;
  stop: () => Promise<void>;
  pause: () => Promise<void>;
  resume: () => Promise<void>;
  /** Steps down for `seconds` (no primary meanwhile); resolves once the step-down is under way. */
  stepDown: (seconds: number) => Promise<void>;
  /** Resolves once the server is a writable primary again. */
  primary: () => Promise<void>;
};

/** Starts the server and answers once it is a writable primary. */
export async function startMongoReplicaSet(): Promise<MongoServer> {
  const container = await new GenericContainer(IMAGE)
    .withCommand(['--replSet', 'rs0', '--bind_ip_all'])
    .withExposedPorts(27017)
    .withWaitStrategy(Wait.forLogMessage(/waiting for connections/i))
    .withStartupTimeout(120_000)
    .start();
  let admin: MongoClient | undefined;
  try {
    const initiated = await container.exec([
      'mongosh',
      '--quiet',
      '--eval',
      "rs.initiate({ _id: 'rs0', members: [{ _id: 0, host: 'localhost:27017' }] })",
    ]);
    if (initiated.exitCode !== 0) throw new Error(`rs.initiate failed: ${initiated.output}`);
    // The member's own address means nothing outside the container: talk to it directly.
    const url = `mongodb://${container.getHost()}:${container.getMappedPort(27017)}/?directConnection=true`;
    const client = await MongoClient.connect(url);
    admin = client;
    const primary = () =>
      untilReady('MongoDB primary', async () => {
        const hello = await client.db('admin').command({ hello: 1 });
        if (!hello.isWritablePrimary) throw new Error('not primary yet');
      });
    await primary();
    const docker = async () => (await getContainerRuntimeClient()).container.getById(container.getId());
    return {
      url,
      admin: client,
      stop: () => stop(client, container),
      pause: async () => void (await (await docker()).pause()),
      resume: async () => void (await (await docker()).unpause()),
      // A single member steps up again by itself once the period is over. The step-down may close this
      // very connection before it answers: that is the step-down happening.
      stepDown: async (seconds) => {
        await client
          .db('admin')
          .command({ replSetStepDown: seconds, secondaryCatchUpPeriodSecs: 1, force: true })
          .catch(() => undefined);
        const hello = await client.db('admin').command({ hello: 1 });
        if (hello.isWritablePrimary) throw new Error('the server did not step down');
      },
      primary,
    };
  } catch (error) {
    await stop(admin, container);
    throw error;
  }
}

async function stop(admin: MongoClient | undefined, container: StartedTestContainer): Promise<void> {
  await admin?.close();
  await container.stop();
}
