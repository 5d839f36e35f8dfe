import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;

/**
 * Starts an embedded Neo4j community server for ContractGraph's tests: one
 * database ("neo4j"), a Bolt connector on 127.0.0.1:PORT, authentication on,
 * and the user "neo4j" given PASSWORD, and a page cache of PAGECACHE_MIB
 * MiB (512 when omitted). It runs until it receives SIGTERM or SIGINT, then
 * shuts the database down cleanly.
 *
 * Usage: java Launcher HOME_DIR PORT PASSWORD [PAGECACHE_MIB]
 */
public final class Launcher {
    public static void main(String[] args) throws Exception {
        if (args.length != 3 && args.length != 4) {
            System.err.println("usage: Launcher HOME_DIR PORT PASSWORD [PAGECACHE_MIB]");
            System.exit(2);
        }
        Path home = Path.of(args[0]);
        int port = Integer.parseInt(args[1]);
        String password = args[2];
        long pageCacheMiB = args.length == 4 ? Long.parseLong(args[3]) : 512;
        Files.createDirectories(home);

        DatabaseManagementService dbms = new DatabaseManagementServiceBuilder(home)
                .setConfig(BoltConnector.enabled, true)
                .setConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
                .setConfig(BoltConnector.advertised_address, new SocketAddress("127.0.0.1", port))
                .setConfig(HttpConnector.enabled, false)
                .setConfig(GraphDatabaseSettings.auth_enabled, true)
                .setConfig(GraphDatabaseSettings.pagecache_memory, pageCacheMiB * 1024 * 1024)
                .setConfig(GraphDatabaseSettings.transaction_timeout, Duration.ofMinutes(5))
                .build();

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            dbms.shutdown();
            stopped.countDown();
        }, "neo4j-test-server-shutdown"));

        // The embedded API runs as a privileged local caller, so it can set the
        // initial password without the change-on-first-login dance.
        dbms.database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME).executeTransactionally(
                "ALTER USER neo4j SET PASSWORD $password CHANGE NOT REQUIRED",
                Map.of("password", password));

        System.out.println("neo4j-test-server: ready on bolt://127.0.0.1:" + port);
        System.out.flush();
        stopped.await();
    }
}
