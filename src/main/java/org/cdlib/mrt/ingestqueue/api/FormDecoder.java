package org.cdlib.mrt.ingestqueue.api;

import io.vertx.core.MultiMap;
import io.vertx.ext.web.FileUpload;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.Charset;
import java.nio.charset.IllegalCharsetNameException;
import java.nio.charset.StandardCharsets;
import java.nio.charset.UnsupportedCharsetException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.commons.fileupload2.core.AbstractFileUpload;
import org.apache.commons.fileupload2.core.AbstractRequestContext;
import org.apache.commons.fileupload2.core.DiskFileItem;
import org.apache.commons.fileupload2.core.DiskFileItemFactory;
import org.apache.commons.fileupload2.core.FileItemInput;
import org.apache.commons.fileupload2.core.FileItemInputIterator;
import org.apache.commons.fileupload2.core.ParameterParser;
import org.apache.commons.fileupload2.core.RequestContext;
import org.cdlib.mrt.ingestqueue.api.http.PostedForm;

/**
 * A multipart/form-data body, stored whole on disk, decoded by commons-fileupload2's streaming parser into the
 * form's fields (in memory, each within {@link HttpApi#MAX_FORM_ATTRIBUTE_BYTES}, all together too) and its files
 * (each copied to the temporary folder). The body is read from a file, so how the network split it cannot
 * change what is decoded (netty#12729: Netty's decoder can keep the CR before a boundary). Blocking: a worker's.
 */
final class FormDecoder {
    /** At most so many parts (fields and files), as Vert.x allowed form fields. */
    static final int MAX_PARTS = 256;
    private static final int BUFFER = 64 * 1024;

    private final Path uploadsTmp;

    FormDecoder(Path uploadsTmp) {
        this.uploadsTmp = uploadsTmp;
    }

    /**
     * The form in {@code body}, sent with {@code contentType}. A body that is not one (no boundary, cut short, too
     * many parts, a field too large) is {@link BadForm}; the disk's own trouble an {@link UncheckedIOException}.
     * Files decoded before a failure are removed.
     */
    PostedForm decode(Path body, String contentType) {
        MultiMap fields = MultiMap.caseInsensitiveMultiMap();
        List<FileUpload> files = new ArrayList<>();
        PostedForm form = new PostedForm(fields, files);
        try (InputStream in = Files.newInputStream(body)) {
            long fieldBytes = 0;
            int count = 0;
            FileItemInputIterator parts = new Parser().getItemIterator(new StoredBody(in, contentType,
                    Files.size(body)));
            while (parts.hasNext()) {
                FileItemInput part = parts.next();
                if (++count > MAX_PARTS) {
                    throw new BadForm("the form has more than " + MAX_PARTS + " parts (fields and files)");
                }
                if (part.isFormField()) {
                    byte[] value = field(part, HttpApi.MAX_FORM_ATTRIBUTE_BYTES - fieldBytes);
                    fieldBytes += value.length;
                    fields.add(part.getFieldName(), new String(value, charset(part.getContentType())));
                } else {
                    files.add(file(part));
                }
            }
            return form;
        } catch (IOException e) {
            form.deleteFiles();
            if (e instanceof DiskTrouble) {
                throw new UncheckedIOException(e);
            }
            throw new BadForm("the multipart body cannot be read (" + e.getMessage() + ")");
        } catch (RuntimeException e) {
            form.deleteFiles();
            throw e;
        }
    }

    /** A field's bytes, refused (FieldTooLarge) beyond what the form's fields may still take. */
    private static byte[] field(FileItemInput part, long left) throws IOException {
        ByteArrayOutputStream value = new ByteArrayOutputStream();
        try (InputStream in = part.getInputStream()) {
            byte[] buffer = new byte[8192];
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                if (value.size() + n > left) {
                    throw new FieldTooLarge();
                }
                value.write(buffer, 0, n);
            }
        }
        return value.toByteArray();
    }

    private PostedForm.File file(FileItemInput part) throws IOException {
        Path stored = uploadsTmp.resolve(UUID.randomUUID().toString());
        long size = 0;
        try (InputStream in = part.getInputStream(); OutputStream out = newFile(stored)) {
            byte[] buffer = new byte[BUFFER];
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                try {
                    out.write(buffer, 0, n);
                } catch (IOException e) {
                    throw new DiskTrouble(e);
                }
                size += n;
            }
        } catch (IOException e) {
            Files.deleteIfExists(stored);
            throw e;
        }
        return new PostedForm.File(part.getFieldName(), stored.toString(), part.getName(), size,
                part.getContentType());
    }

    private static OutputStream newFile(Path stored) throws DiskTrouble {
        try {
            return Files.newOutputStream(stored);
        } catch (IOException e) {
            throw new DiskTrouble(e);
        }
    }

    /** A part's declared charset, else UTF-8 (as Vert.x decoded fields). */
    private static Charset charset(String contentType) {
        ParameterParser parser = new ParameterParser();
        parser.setLowerCaseNames(true);
        String name = contentType == null ? null : parser.parse(contentType, ';').get("charset");
        try {
            return name == null ? StandardCharsets.UTF_8 : Charset.forName(name);
        } catch (IllegalCharsetNameException | UnsupportedCharsetException e) {
            return StandardCharsets.UTF_8;
        }
    }

    /** The body is not a form the queue can read: a 400 naming why. */
    static class BadForm extends RuntimeException {
        BadForm(String message) {
            super(message);
        }
    }

    /** A field larger than the form's fields may take: the 400 of a form field over Vert.x's limit. */
    static final class FieldTooLarge extends BadForm {
        FieldTooLarge() {
            super("a form field is larger than " + HttpApi.MAX_FORM_ATTRIBUTE_BYTES + " bytes");
        }
    }

    /** The temporary folder cannot take a file: the service's trouble, not the request's. */
    private static final class DiskTrouble extends IOException {
        DiskTrouble(IOException cause) {
            super(cause);
        }
    }

    /** The stored body as commons-fileupload2 reads a request. */
    private static final class StoredBody extends AbstractRequestContext<InputStream> {
        private final String contentType;

        StoredBody(InputStream in, String contentType, long length) {
            super(name -> "Content-Type".equalsIgnoreCase(name) ? contentType : null, () -> length, in);
            this.contentType = contentType;
        }

        @Override
        public String getCharacterEncoding() {
            return StandardCharsets.UTF_8.name();
        }

        @Override
        public String getContentType() {
            return contentType;
        }

        @Override
        public InputStream getInputStream() {
            return getRequest();
        }
    }

    /** The parser with part headers (and so file names) read as UTF-8; only its streaming iterator is used. */
    private static final class Parser extends AbstractFileUpload<RequestContext, DiskFileItem, DiskFileItemFactory> {
        Parser() {
            setHeaderCharset(StandardCharsets.UTF_8);
        }

        @Override
        public Map<String, List<DiskFileItem>> parseParameterMap(RequestContext request) {
            throw new UnsupportedOperationException("only the streaming iterator is used");
        }

        @Override
        public List<DiskFileItem> parseRequest(RequestContext request) {
            throw new UnsupportedOperationException("only the streaming iterator is used");
        }

        @Override
        public FileItemInputIterator getItemIterator(RequestContext request) throws IOException {
            return super.getItemIterator(request);
        }
    }
}
