import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

/**
 * Starts Amazon DynamoDB Local listening on 127.0.0.1 only. DynamoDB Local has no option for the
 * listening address: its server (Jetty) binds every interface, so anyone on the network could read
 * and write the local tables (credits, keys). This builds the server exactly as DynamoDB Local's own
 * main does, from the same command-line options, then sets its connectors' host to the loopback
 * address before starting it. It stops (exit 1) rather than ever listen on another address.
 * Compiled and run by dev/dynamo.ts.
 */
public class LoopbackDynamoDBLocal {
  public static void main(String[] args) throws Exception {
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    Server server = (Server) field.get(proxy);
    Connector[] connectors = server.getConnectors();
    if (connectors.length == 0) fail("DynamoDB Local has no connector to bind");
    for (Connector connector : connectors) {
      if (!(connector instanceof ServerConnector)) fail("unexpected connector " + connector.getClass().getName());
      ((ServerConnector) connector).setHost("127.0.0.1");
    }
    proxy.start();
    for (Connector connector : connectors) {
      if (!"127.0.0.1".equals(((ServerConnector) connector).getHost())) fail("a connector is not on 127.0.0.1");
    }
  }

  private static void fail(String why) {
    System.err.println("LoopbackDynamoDBLocal: " + why + "; not starting");
    System.exit(1);
  }
}
