package attest.solr;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.solr.cloud.MiniSolrCloudCluster;
import org.apache.solr.embedded.JettyConfig;
import org.apache.solr.embedded.JettySolrRunner;

/**
 * A SolrCloud of real Solr nodes on loopback, with an embedded ZooKeeper: Solr's own
 * MiniSolrCloudCluster, which its tests use. Attest's tests and benches start it through
 * scripts/solr.js; nothing of it ships.
 *
 * <p>Once every node answers, it writes the state file (the nodes' base URLs, ZooKeeper's address,
 * the control address, its process id) atomically, so a reader never sees half of one. The control
 * address, on loopback, lets a test stop and start a node mid-run (POST /nodes/N/stop, /nodes/N/start)
 * and ends the cluster (POST /shutdown); so does SIGTERM.
 *
 * <p>Usage: Cluster NODES BASE_DIR STATE_FILE
 */
public final class Cluster {
  private static final Pattern NODE_ACTION = Pattern.compile("^/nodes/(\\d+)/(stop|start)$");

  private final MiniSolrCloudCluster cluster;
  private final CountDownLatch ended = new CountDownLatch(1);

  private Cluster(MiniSolrCloudCluster cluster) {
    this.cluster = cluster;
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("Usage: Cluster NODES BASE_DIR STATE_FILE");
      System.exit(2);
    }
    int nodes = Integer.parseInt(args[0]);
    Path base = Path.of(args[1]);
    Path state = Path.of(args[2]);
    Files.createDirectories(base);
    JettyConfig jetty = JettyConfig.builder().setContext("/solr").setPort(0).build();
    Cluster running = new Cluster(new MiniSolrCloudCluster(nodes, base, jetty));
    Runtime.getRuntime().addShutdownHook(new Thread(running::shutDown));
    HttpServer control = running.control();
    running.writeState(state, control.getAddress().getPort());
    running.ended.await();
    control.stop(0);
    Files.deleteIfExists(state);
    System.exit(0);
  }

  private HttpServer control() throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", this::handle);
    server.start();
    return server;
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String path = exchange.getRequestURI().getPath();
      if (!"POST".equals(exchange.getRequestMethod())) {
        reply(exchange, 405, "POST only\n");
        return;
      }
      if (path.equals("/shutdown")) {
        reply(exchange, 200, "ending\n");
        new Thread(this::shutDown).start();
        return;
      }
      Matcher action = NODE_ACTION.matcher(path);
      if (!action.matches()) {
        reply(exchange, 404, "unknown: " + path + "\n");
        return;
      }
      int node = Integer.parseInt(action.group(1));
      List<JettySolrRunner> runners = cluster.getJettySolrRunners();
      if (node >= runners.size()) {
        reply(exchange, 404, "no node " + node + "\n");
        return;
      }
      JettySolrRunner runner = runners.get(node);
      if (action.group(2).equals("stop")) {
        runner.stop();
      } else {
        runner.start(true);
        cluster.waitForNode(runner, 60);
      }
      reply(exchange, 200, runner.getBaseUrl() + "\n");
    } catch (Exception error) {
      reply(exchange, 500, error + "\n");
    }
  }

  private static void reply(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  private void writeState(Path state, int controlPort) throws IOException {
    StringBuilder urls = new StringBuilder();
    for (JettySolrRunner runner : cluster.getJettySolrRunners()) {
      if (urls.length() > 0) urls.append(", ");
      urls.append('"').append(runner.getBaseUrl()).append('"');
    }
    String json =
        "{\n  \"urls\": [" + urls + "],\n  \"zkHost\": \"" + cluster.getZkServer().getZkAddress()
            + "\",\n  \"control\": \"http://127.0.0.1:" + controlPort + "\",\n  \"pid\": "
            + ProcessHandle.current().pid() + "\n}\n";
    Path partial = state.resolveSibling(state.getFileName() + ".partial");
    Files.writeString(partial, json);
    Files.move(partial, state, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  private synchronized void shutDown() {
    if (ended.getCount() == 0) return;
    try {
      cluster.shutdown();
    } catch (Exception error) {
      System.err.println("The cluster did not shut down cleanly: " + error);
    } finally {
      ended.countDown();
    }
  }
}
