package org.eventindex.deploy.differential;

import org.eventindex.message.Json;
import org.eventindex.message.ProducerMessage;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

/**
 * The supervisor's own check of a producer message ({@code org.eventindex.supervisor.MessageValidator#producer}, the
 * one a running supervisor applies to every message of the producer queue before it journals the object). Between the
 * producer and the consumer it is the only step that reads the message's content: a message it rejects means an object
 * the producer accepted that no consumer is ever signalled for. The class is package-private in the supervisor
 * module, so it is reached by reflection; a failure to reach it is reported as such, never taken as an accept.
 */
final class SupervisorValidation {
    private static final String VALIDATOR = "org.eventindex.supervisor.MessageValidator";

    private final Object validator;
    private final Method producer;

    /** @param bucket the bucket the supervisor is configured with */
    SupervisorValidation(String bucket) {
        try {
            Class<?> type = Class.forName(VALIDATOR);
            Constructor<?> make = type.getDeclaredConstructor(String.class);
            make.setAccessible(true);
            validator = make.newInstance(bucket);
            producer = type.getDeclaredMethod("producer", byte[].class, String.class);
            producer.setAccessible(true);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("cannot reach the supervisor's " + VALIDATOR + ".producer(byte[], String)"
                    + " (renamed?): " + e, e);
        }
    }

    /** @return null when the supervisor accepts the message, else its rejection (reason, detail) */
    String rejection(ProducerMessage message) {
        Object inbound;
        try {
            inbound = producer.invoke(validator, Json.write(message), "differential");
        } catch (InvocationTargetException e) {
            return "the validator threw " + e.getCause();
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot call " + VALIDATOR + ".producer: " + e, e);
        }
        return inbound.getClass().getSimpleName().equals("ObjectStored") ? null : inbound.toString();
    }
}
