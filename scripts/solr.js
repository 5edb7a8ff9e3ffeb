#!/usr/bin/env node
'use strict';
// A 2-node SolrCloud on loopback, for the tests and benches of Attest's Solr backend:
//   node scripts/solr.js start    prints the URL of the first node once every node answers
//   node scripts/solr.js url      prints it for a cluster already running (exit 1 when none is)
//   node scripts/solr.js stop     ends the cluster and removes its data; nothing is left running
// Solr's own MiniSolrCloudCluster (solr-test-framework 9.10.1 from Maven Central, fetched by mvn) with its
// embedded ZooKeeper; solr/cluster/ holds the launcher. Java 17 and Maven are needed.
const { spawn, spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const project = path.join(root, 'solr', 'cluster');
const work = path.join(root, 'build', 'solr');
const stateFile = path.join(work, 'state.json');
const NODES = 2;
const START_SECONDS = 240;
const STOP_SECONDS = 60;

function fail(message) {
  console.error(`solr: ${message}`);
  process.exit(1);
}

function running() {
  let state;
  try {
    state = JSON.parse(fs.readFileSync(stateFile, 'utf8'));
  } catch {
    return undefined;
  }
  try {
    process.kill(state.pid, 0);
    return state;
  } catch {
    fs.rmSync(stateFile, { force: true });
    return undefined;
  }
}

/** The launcher's classpath, resolved by Maven once per version of its pom. */
function classpath() {
  const pom = fs.readFileSync(path.join(project, 'pom.xml'));
  const source = fs.readFileSync(path.join(project, 'src/main/java/attest/solr/Cluster.java'));
  const key = crypto.createHash('sha256').update(pom).update(source).digest('hex').slice(0, 16);
  const built = path.join(work, `classes-${key}`);
  const listed = path.join(work, `classpath-${key}.txt`);
  if (!fs.existsSync(listed)) {
    fs.mkdirSync(work, { recursive: true });
    console.error('solr: resolving Solr 9.10.1 from Maven Central (once)…');
    const mvn = spawnSync('mvn', ['-q', '-B', '-Dstyle.color=never', '-f', path.join(project, 'pom.xml'), 'dependency:build-classpath', `-Dmdep.outputFile=${listed}.partial`], {
      stdio: 'inherit',
    });
    if (mvn.error) fail(`Maven could not be run (${mvn.error.message}): install Maven and Java 17.`);
    if (mvn.status !== 0) fail('Maven could not resolve Solr (see above).');
    fs.renameSync(`${listed}.partial`, listed);
  }
  const jars = fs.readFileSync(listed, 'utf8').trim();
  if (!fs.existsSync(built)) {
    const partial = `${built}.partial`;
    fs.rmSync(partial, { recursive: true, force: true });
    const javac = spawnSync('javac', ['-d', partial, '-cp', jars, path.join(project, 'src/main/java/attest/solr/Cluster.java')], { stdio: 'inherit' });
    if (javac.error) fail(`javac could not be run (${javac.error.message}): install a Java 17 JDK.`);
    if (javac.status !== 0) fail('the cluster launcher did not compile (see above).');
    fs.renameSync(partial, built);
  }
  return `${built}${path.delimiter}${jars}`;
}

async function start() {
  const already = running();
  if (already) {
    console.log(already.urls[0]);
    return;
  }
  const cp = classpath();
  const data = path.join(work, 'data');
  fs.rmSync(data, { recursive: true, force: true });
  const log = fs.openSync(path.join(work, 'cluster.log'), 'w');
  const child = spawn('java', ['-Xmx2g', '-Dsolr.log.dir=' + path.join(work, 'logs'), '-cp', cp, 'attest.solr.Cluster', String(NODES), data, stateFile], {
    detached: true,
    stdio: ['ignore', log, log],
  });
  let exited;
  child.on('exit', (code, signal) => (exited = signal ?? code));
  child.unref();
  const deadline = Date.now() + START_SECONDS * 1000;
  while (Date.now() < deadline) {
    if (exited !== undefined) fail(`the cluster stopped while starting (${exited}); its log: ${path.join(work, 'cluster.log')}`);
    const state = running();
    if (state) {
      console.error(`solr: ${NODES} nodes on loopback; ZooKeeper at ${state.zkHost}; stop with npm run solr:stop`);
      console.log(state.urls[0]);
      process.exit(0);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Gone already.
  }
  fail(`the cluster did not start within ${START_SECONDS} s; its log: ${path.join(work, 'cluster.log')}`);
}

async function stop() {
  const state = running();
  if (!state) {
    console.error('solr: no cluster is running');
    return;
  }
  await fetch(`${state.control}/shutdown`, { method: 'POST' }).catch(() => undefined);
  const deadline = Date.now() + STOP_SECONDS * 1000;
  const alive = () => {
    try {
      process.kill(state.pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  while (alive() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 250));
  if (alive()) {
    console.error(`solr: the cluster did not end within ${STOP_SECONDS} s; killing it`);
    try {
      process.kill(state.pid, 'SIGKILL');
    } catch {
      // Ended meanwhile.
    }
  }
  fs.rmSync(stateFile, { force: true });
  fs.rmSync(path.join(work, 'data'), { recursive: true, force: true });
  console.error('solr: stopped');
}

const command = process.argv[2];
if (command === 'start') start();
else if (command === 'stop') stop();
else if (command === 'url') {
  const state = running();
  if (!state) process.exit(1);
  console.log(state.urls[0]);
} else fail('usage: node scripts/solr.js start|stop|url');
